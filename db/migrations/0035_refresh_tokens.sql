-- Refresh tokens for model clients (OAuth 2.1 and RFC 9700 4.14 for public clients): a client that
-- registered for the refresh_token grant gets one with each access token. Each use rotates it (the
-- old one is spent); a spent one presented again revokes its whole family, the grant, with the access
-- token it issued. Only hashes are stored.

-- The grant types a client registered for (RFC 7591 2); a client registered before this is the code's only.
ALTER TABLE protocol_clients ADD COLUMN grant_types text[] NOT NULL DEFAULT '{authorization_code}';

-- The family's absolute end: no refresh gives a token beyond it, however often the client refreshes.
ALTER TABLE protocol_grants ADD COLUMN refresh_until timestamptz;

ALTER TABLE protocol_grants DROP CONSTRAINT protocol_grants_revoke_reason_check;
ALTER TABLE protocol_grants ADD CONSTRAINT protocol_grants_revoke_reason_check
  CHECK (revoke_reason IN ('person', 'code_reused', 'membership_ended', 'organization_deleted', 'client', 'refresh_reused', 'organization_suspended'));

-- Every refresh token of a grant: the live one (not spent) and those spent, kept until they would have
-- expired so that presenting one again is recognised as reuse.
CREATE TABLE protocol_refresh_tokens (
  token_hash text PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  grant_id uuid NOT NULL REFERENCES protocol_grants (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  spent_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX protocol_refresh_tokens_grant ON protocol_refresh_tokens (grant_id);
SELECT svc_protect_tenant_table('protocol_refresh_tokens');
-- The token endpoint finds a refresh token by its hash before it knows the organization.
CREATE POLICY by_hash ON protocol_refresh_tokens FOR SELECT USING (token_hash = app_lookup('protocol_refresh_hash'));
