-- The model-context-protocol endpoint's authorization server (worker/mcp): clients registered by
-- dynamic client registration (RFC 7591), and grants: one consent by one person for one client in
-- one organization, carrying its single-use authorization code and then its access token. Only
-- hashes of codes and tokens are stored.

-- A registered client. Public (no secret); its redirect URIs are matched exactly. It belongs to no
-- organization: registration happens before anyone signs in.
CREATE TABLE protocol_clients (
  client_id text PRIMARY KEY,
  client_name text NOT NULL,
  redirect_uris text[] NOT NULL CHECK (cardinality(redirect_uris) BETWEEN 1 AND 10),
  created_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE protocol_clients ENABLE ROW LEVEL SECURITY;
ALTER TABLE protocol_clients FORCE ROW LEVEL SECURITY;
CREATE POLICY register ON protocol_clients FOR INSERT WITH CHECK (true);
-- Consent and the token endpoint find the client by the identifier the request names.
CREATE POLICY by_client_id ON protocol_clients FOR SELECT USING (client_id = app_lookup('protocol_client_id'));
CREATE POLICY operator_read ON protocol_clients FOR SELECT TO svc_operator USING (true);
GRANT SELECT, INSERT ON protocol_clients TO svc_app;
GRANT SELECT ON protocol_clients TO svc_operator;

-- A grant: made when the person consents (the code), completed by the token endpoint (the token).
-- A code is redeemed once; presenting it again revokes the grant and the token it issued.
CREATE TABLE protocol_grants (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  person_id uuid NOT NULL REFERENCES people (id) ON DELETE CASCADE,
  client_id text NOT NULL REFERENCES protocol_clients (client_id) ON DELETE CASCADE,
  -- What the client's name was when the person consented, for the console's list.
  client_name text NOT NULL,
  redirect_uri text NOT NULL,
  code_challenge text NOT NULL,
  code_hash text NOT NULL UNIQUE,
  code_expires_at timestamptz NOT NULL,
  code_used_at timestamptz,
  token_hash text UNIQUE,
  token_expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz,
  revoke_reason text CHECK (revoke_reason IN ('person', 'code_reused', 'membership_ended', 'organization_deleted')),
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((token_hash IS NULL) = (token_expires_at IS NULL)),
  CHECK (token_hash IS NULL OR code_used_at IS NOT NULL)
);
CREATE INDEX protocol_grants_person ON protocol_grants (org_id, person_id);
SELECT svc_protect_tenant_table('protocol_grants', 'SELECT, INSERT, UPDATE');
-- The token endpoint finds a grant by its code, /mcp by its token, before either knows the organization.
CREATE POLICY by_code ON protocol_grants USING (code_hash = app_lookup('protocol_code_hash'));
CREATE POLICY by_token ON protocol_grants USING (token_hash = app_lookup('protocol_token_hash'));
