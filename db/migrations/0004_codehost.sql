-- The code host: repository claims and the engine tokens minted through them, the repositories an App
-- installation covers, workflow dispatches, used identity-token ids and handled webhook deliveries.

-- A repository claim (the spec's OidcBinding): lets workflow identity tokens from this repository be
-- exchanged for engine tokens of the organization. Names are compared case-insensitively through
-- `repository_key`; the numeric ids are pinned at first use so a deleted-and-recreated (or
-- transferred) repository of the same name is not the claimed one. One live claim per repository;
-- a revoked claim stays as the record of what was revoked.
CREATE TABLE repository_claims (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  repository text NOT NULL CHECK (repository ~ '^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$'),
  repository_key text GENERATED ALWAYS AS (lower(repository)) STORED,
  repository_id bigint,
  owner_id bigint,
  -- 'installation': created by the first identity exchange from the organization's App installation.
  source text NOT NULL CHECK (source IN ('cli', 'installation')),
  installation_id uuid REFERENCES installations (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz,
  CHECK ((repository_id IS NULL) = (owner_id IS NULL))
);
CREATE UNIQUE INDEX repository_claims_live ON repository_claims (repository_key) WHERE revoked_at IS NULL;
CREATE INDEX repository_claims_key ON repository_claims (repository_key);
CREATE INDEX repository_claims_org ON repository_claims (org_id, created_at);
SELECT svc_protect_tenant_table('repository_claims', 'SELECT, INSERT, UPDATE');
-- The identity exchange learns the organization from the claim, so it finds the claim by name first.
CREATE POLICY by_repository ON repository_claims FOR SELECT USING (repository_key = app_lookup('claim_repository'));

-- Engine tokens minted by identity exchange name their claim; they die with it.
ALTER TABLE tokens ADD COLUMN binding_id uuid REFERENCES repository_claims (id) ON DELETE CASCADE;
CREATE INDEX tokens_binding ON tokens (binding_id) WHERE binding_id IS NOT NULL;

-- Installations are found before their organization is known: by the account they are installed on
-- (the identity exchange, a new installation's webhook) and by the code host's installation id (every
-- later webhook).
CREATE INDEX installations_account ON installations (lower(account_login));
CREATE POLICY by_account ON installations FOR SELECT USING (lower(account_login) = app_lookup('installation_account'));
CREATE POLICY by_codehost_id ON installations FOR SELECT
  USING (codehost_installation_id = app_lookup('codehost_installation')::bigint);

-- The repositories an installation covers, as the installation webhooks report them.
CREATE TABLE installation_repositories (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  installation_id uuid NOT NULL REFERENCES installations (id) ON DELETE CASCADE,
  repository_id bigint NOT NULL,
  full_name text NOT NULL,
  added_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (installation_id, repository_id)
);
CREATE INDEX installation_repositories_org ON installation_repositories (org_id);
SELECT svc_protect_tenant_table('installation_repositories');

-- Every workflow dispatch asked of the code host and what it answered; a refused one is kept with
-- the refusal. `inputs` is what was sent (declared inputs only); `dropped_inputs` names the rest.
CREATE TABLE workflow_dispatches (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  repository text NOT NULL,
  workflow text NOT NULL,
  ref text NOT NULL,
  inputs jsonb NOT NULL DEFAULT '{}',
  dropped_inputs text[] NOT NULL DEFAULT '{}',
  outcome text NOT NULL CHECK (outcome IN ('dispatched', 'refused', 'unreachable')),
  refusal_status integer,
  refusal text,
  requested_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((outcome = 'dispatched') = (refusal IS NULL))
);
CREATE INDEX workflow_dispatches_org ON workflow_dispatches (org_id, requested_at);
SELECT svc_protect_tenant_table('workflow_dispatches', 'SELECT, INSERT');

-- Identity-token ids already exchanged, kept until the token expires: a replay is refused. Belongs
-- to no organization. The application role may add ids and prune expired ones; it cannot read them.
CREATE TABLE used_identity_tokens (
  jti text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
CREATE INDEX used_identity_tokens_expiry ON used_identity_tokens (expires_at);
GRANT INSERT, DELETE ON used_identity_tokens TO svc_app;
GRANT SELECT (expires_at) ON used_identity_tokens TO svc_app;

-- Webhook deliveries already handled, by the code host's delivery id: a redelivery does nothing.
-- Recorded in the same transaction as the delivery's effect. The code host redelivers for days, not
-- months, so old ids are pruned.
CREATE TABLE codehost_deliveries (
  delivery_id text PRIMARY KEY,
  event text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX codehost_deliveries_received ON codehost_deliveries (received_at);
GRANT INSERT, DELETE ON codehost_deliveries TO svc_app;
GRANT SELECT (received_at) ON codehost_deliveries TO svc_app;
