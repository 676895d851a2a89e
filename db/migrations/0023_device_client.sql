-- The device flow's approval page names the client that asked (RFC 8628 3.1 `client_id`), as the
-- client named itself: nothing verifies it, and the page says so.
ALTER TABLE device_authorizations ADD COLUMN client_id text;
