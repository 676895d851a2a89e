-- Who is calling: people found by their code-host account, invitations, magic links and device
-- authorizations (the CLI's sign-in).

-- Sign-in finds a returning person by their code-host account before it knows anything else.
CREATE POLICY by_codehost_user ON people FOR SELECT USING (codehost_user_id = app_lookup('codehost_user_id')::bigint);

-- An invitation into an organization. Only a hash of its token is stored; the token lives in the link.
CREATE TABLE invitations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  email text NOT NULL CHECK (email = lower(email)),
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
  token_hash text NOT NULL UNIQUE,
  invited_by uuid REFERENCES people (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  accepted_by uuid REFERENCES people (id) ON DELETE SET NULL,
  revoked_at timestamptz
);
CREATE INDEX invitations_email ON invitations (email) WHERE accepted_at IS NULL AND revoked_at IS NULL;
SELECT svc_protect_tenant_table('invitations');
-- A magic-link request asks "is this address invited anywhere?" before any organization is known;
-- it sees only live invitations of the address it names.
CREATE POLICY by_invited_email ON invitations FOR SELECT
  USING (email = app_lookup('invited_email') AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now());
CREATE POLICY by_token ON invitations FOR SELECT USING (token_hash = app_lookup('invitation_hash'));

-- A sign-in link sent by e-mail: works once, for 15 minutes. Belongs to an address, not an organization.
CREATE TABLE magic_links (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
ALTER TABLE magic_links ENABLE ROW LEVEL SECURITY;
ALTER TABLE magic_links FORCE ROW LEVEL SECURITY;
CREATE POLICY issue ON magic_links FOR INSERT WITH CHECK (true);
CREATE POLICY by_token ON magic_links USING (token_hash = app_lookup('magic_link_hash'));
GRANT SELECT, INSERT, UPDATE ON magic_links TO svc_app;

-- The device authorization flow (RFC 8628). It is reached only by its codes, never by organization:
-- the CLI polls with the device code, the signed-in person types the user code and chooses the
-- organization the token will belong to (`granted_org_id`).
CREATE TABLE device_authorizations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  device_code_hash text NOT NULL UNIQUE,
  user_code text NOT NULL UNIQUE,
  scopes text[] NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied', 'issued')),
  person_id uuid REFERENCES people (id) ON DELETE CASCADE,
  granted_org_id uuid REFERENCES organizations (id) ON DELETE CASCADE,
  granted_scopes text[],
  interval_seconds integer NOT NULL,
  last_polled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  CHECK ((status IN ('approved', 'issued')) = (granted_org_id IS NOT NULL))
);
ALTER TABLE device_authorizations ENABLE ROW LEVEL SECURITY;
ALTER TABLE device_authorizations FORCE ROW LEVEL SECURITY;
CREATE POLICY issue ON device_authorizations FOR INSERT WITH CHECK (status = 'pending');
CREATE POLICY by_device_code ON device_authorizations USING (device_code_hash = app_lookup('device_code_hash'));
CREATE POLICY by_user_code ON device_authorizations USING (user_code = app_lookup('user_code'));
GRANT SELECT, INSERT, UPDATE ON device_authorizations TO svc_app;

-- A signed-in person sees their own memberships and the organizations they belong to, whichever
-- organization (if any) the request acts for.
CREATE POLICY own ON memberships FOR SELECT USING (person_id = app_lookup('person_id')::uuid);
CREATE POLICY member ON organizations FOR SELECT
  USING (EXISTS (SELECT 1 FROM memberships m WHERE m.org_id = organizations.id AND m.person_id = app_lookup('person_id')::uuid));

-- A magic-link sign-in finds the person who owns the invited address.
CREATE POLICY by_email ON people FOR SELECT USING (email = app_lookup('person_email'));
