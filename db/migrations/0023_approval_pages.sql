-- The device flow's approval page names the client that asked (RFC 8628 3.1 `client_id`), as the
-- client named itself: nothing verifies it, and the page says so.
ALTER TABLE device_authorizations ADD COLUMN client_id text;

-- /auth/mcp/authorize sends an error back to a client's redirect URI only when the signed-in person
-- has consented to that client before (else it shows the error: no open redirector). That check
-- names both the person and the client; it reads nothing else of the grants.
CREATE POLICY by_person_and_client ON protocol_grants FOR SELECT
  USING (person_id::text = app_lookup('person_id') AND client_id = app_lookup('protocol_client_id'));
