-- The shared core: organizations, installations, people, memberships, sessions, tokens,
-- environments, events and the audit log.

CREATE TABLE organizations (
  id uuid PRIMARY KEY,
  slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  name text NOT NULL,
  plan text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'team', 'enterprise')),
  suspended_at timestamptz,
  suspended_reason text,
  created_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE organizations ENABLE ROW LEVEL SECURITY;
ALTER TABLE organizations FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON organizations USING (id = app_org_id()) WITH CHECK (id = app_org_id());
CREATE POLICY by_slug ON organizations FOR SELECT USING (slug = app_lookup('org_slug'));
CREATE POLICY operator_read ON organizations FOR SELECT TO svc_operator USING (true);
GRANT SELECT, INSERT, UPDATE ON organizations TO svc_app;
GRANT SELECT ON organizations TO svc_operator;

-- A code-host App installation; written by the installation webhook.
CREATE TABLE installations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  codehost_installation_id bigint NOT NULL UNIQUE,
  account_login text NOT NULL,
  account_id bigint NOT NULL,
  suspended_at timestamptz,
  deleted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX installations_org ON installations (org_id);
SELECT svc_protect_tenant_table('installations');

-- A person spans organizations, so the row carries no organization: it is visible to the person
-- themselves and to the organizations they are a member of.
CREATE TABLE people (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  codehost_user_id bigint UNIQUE,
  login text,
  name text,
  email text,
  avatar_url text,
  created_at timestamptz NOT NULL DEFAULT now(),
  closed_at timestamptz
);

CREATE TABLE memberships (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  person_id uuid NOT NULL REFERENCES people (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
  -- manual: promoted on the Members page, never overwritten by a later sign-in
  role_source text NOT NULL CHECK (role_source IN ('sync', 'manual', 'bootstrap', 'invitation', 'self_serve')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, person_id)
);
CREATE INDEX memberships_person ON memberships (person_id);
SELECT svc_protect_tenant_table('memberships');

ALTER TABLE people ENABLE ROW LEVEL SECURITY;
ALTER TABLE people FORCE ROW LEVEL SECURITY;
CREATE POLICY self ON people USING (id = app_lookup('person_id')::uuid);
CREATE POLICY member_of_org ON people FOR SELECT
  USING (EXISTS (SELECT 1 FROM memberships m WHERE m.person_id = people.id AND m.org_id = app_org_id()));
CREATE POLICY operator_read ON people FOR SELECT TO svc_operator USING (true);
GRANT SELECT, INSERT, UPDATE ON people TO svc_app;
GRANT SELECT ON people TO svc_operator;

-- A browser session. Only the hash of the cookie value is stored.
CREATE TABLE sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  person_id uuid NOT NULL REFERENCES people (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  client_address text,
  user_agent text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  signed_out_at timestamptz
);
CREATE INDEX sessions_person ON sessions (person_id);
ALTER TABLE sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE sessions FORCE ROW LEVEL SECURITY;
CREATE POLICY by_token ON sessions USING (token_hash = app_lookup('session_hash'));
CREATE POLICY own ON sessions USING (person_id = app_lookup('person_id')::uuid);
CREATE POLICY member_of_org ON sessions
  USING (EXISTS (SELECT 1 FROM memberships m WHERE m.person_id = sessions.person_id AND m.org_id = app_org_id()));
CREATE POLICY operator_read ON sessions FOR SELECT TO svc_operator USING (true);
GRANT SELECT, INSERT, UPDATE ON sessions TO svc_app;
GRANT SELECT ON sessions TO svc_operator;

-- Engine and CLI tokens. Only a SHA-256 hash of the token is stored; `display_prefix` lets a person
-- recognise one in a list.
CREATE TABLE tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('engine', 'cli')),
  name text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  display_prefix text NOT NULL,
  scopes text[] NOT NULL DEFAULT '{}',
  created_by uuid REFERENCES people (id) ON DELETE SET NULL,
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tokens_org ON tokens (org_id);
SELECT svc_protect_tenant_table('tokens');
CREATE POLICY by_token ON tokens FOR SELECT USING (token_hash = app_lookup('token_hash'));

-- The projection of `environment.*` events.
CREATE TABLE environments (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  env_id text NOT NULL,
  repository text NOT NULL,
  branch text,
  pull_request integer,
  state text NOT NULL CHECK (state IN ('queued', 'creating', 'ready', 'sleeping', 'failed', 'torn_down')),
  last_sequence bigint,
  last_event_at timestamptz NOT NULL,
  started_at timestamptz,
  ttl_seconds double precision,
  expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, env_id)
);
SELECT svc_protect_tenant_table('environments');

-- Ingested events, partitioned by month of `occurred_at`. The idempotency key includes the partition
-- column, as every unique key on a partitioned table must. Owned by the maintenance role so that it
-- can create, attach and drop months.
-- No foreign key to organizations: it would cost every ingested row a lookup, and deleting an
-- organization removes its events explicitly.
CREATE TABLE events (
  org_id uuid NOT NULL,
  id text NOT NULL,
  occurred_at timestamptz NOT NULL,
  type text NOT NULL,
  env_id text,
  sequence bigint,
  payload jsonb NOT NULL DEFAULT '{}',
  token_id uuid,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, id, occurred_at)
) PARTITION BY RANGE (occurred_at);
CREATE TABLE events_default PARTITION OF events DEFAULT;
CREATE INDEX events_env ON events (org_id, env_id, occurred_at);
SELECT svc_protect_tenant_table('events', 'SELECT, INSERT');
CREATE POLICY maintenance ON events TO svc_maintenance USING (true) WITH CHECK (true);
ALTER TABLE events OWNER TO svc_maintenance;
ALTER TABLE events_default OWNER TO svc_maintenance;

-- Append-only audit log: the application role may add and read entries, never change them.
CREATE TABLE audit_log (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  seq bigint NOT NULL,
  action text NOT NULL,
  actor_person_id uuid REFERENCES people (id) ON DELETE SET NULL,
  actor_label text NOT NULL,
  target text,
  data jsonb NOT NULL DEFAULT '{}',
  prev_hash text,
  hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, seq)
);
SELECT svc_protect_tenant_table('audit_log', 'SELECT, INSERT');
