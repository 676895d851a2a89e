-- Masking rule and egress policy proposals (spec: Roles and permissions, masking.* and network.*),
-- the organization's current masking file and egress block, and pull-request checks (spec: Other
-- control plane routes, /v1/pr/*; Authentication rule 10; Limits, commit credential).

-- A proposed change to the masking file or the egress block. Proposed by someone with masking.edit
-- (network.edit), decided by someone else with masking.approve (network.approve); once approved it
-- is opened as a pull request in `repository`, and every attempt at that is kept on the row.
CREATE TABLE change_proposals (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('masking', 'egress')),
  repository text NOT NULL,
  summary text NOT NULL,
  -- The text the pull request commits: the whole masking file, or the egress block.
  content text NOT NULL,
  -- Egress only: the structured policy the block was rendered from.
  policy jsonb,
  -- What was current when the change was proposed (the loosening is judged against it).
  previous_content text NOT NULL,
  loosens boolean NOT NULL DEFAULT false,
  -- Egress only: what the change allows that was denied before.
  loosened jsonb NOT NULL DEFAULT '[]',
  state text NOT NULL DEFAULT 'proposed' CHECK (state IN ('proposed', 'approved', 'rejected')),
  proposed_by uuid REFERENCES people (id) ON DELETE SET NULL,
  proposed_by_label text NOT NULL,
  proposed_at timestamptz NOT NULL DEFAULT now(),
  decided_by uuid REFERENCES people (id) ON DELETE SET NULL,
  decided_by_label text,
  decided_at timestamptz,
  decision_note text,
  -- The pull request: null until tried; 'opened' or 'refused' (the code host's answer kept).
  pr_state text CHECK (pr_state IN ('opened', 'refused')),
  pr_attempts integer NOT NULL DEFAULT 0,
  pr_branch text,
  pr_number integer,
  pr_url text,
  pr_refusal text,
  pr_refusal_status integer,
  pr_attempted_at timestamptz,
  CHECK (state = 'approved' OR pr_state IS NULL)
);
CREATE INDEX change_proposals_org ON change_proposals (org_id, proposed_at DESC);
SELECT svc_protect_tenant_table('change_proposals');

-- The organization's current masking file and egress block: the content of the latest approved proposal.
CREATE TABLE policy_files (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('masking', 'egress')),
  content text NOT NULL,
  policy jsonb,
  proposal_id uuid REFERENCES change_proposals (id) ON DELETE SET NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, kind)
);
SELECT svc_protect_tenant_table('policy_files');

-- Fork pull-request commits: a credential for one is refused until a person approves that exact
-- commit. A refused request leaves a row waiting (approved_at null) for the console to show.
CREATE TABLE pr_commit_approvals (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  repository text NOT NULL,
  repository_key text GENERATED ALWAYS AS (lower(repository)) STORED,
  commit_sha text NOT NULL CHECK (commit_sha ~ '^[0-9a-f]{40}$'),
  pull_request integer,
  head_repository text,
  requested_at timestamptz,
  approved_at timestamptz,
  approved_by uuid REFERENCES people (id) ON DELETE SET NULL,
  approved_by_label text,
  PRIMARY KEY (org_id, repository_key, commit_sha)
);
SELECT svc_protect_tenant_table('pr_commit_approvals');

-- Commit credentials (POST /v1/pr/callback-token): bound to one commit and one workflow run,
-- expiring within the hour, good for one report. Only the SHA-256 hash of the value is stored; a
-- report finds its row before its organization is known through the `token_hash` lookup.
CREATE TABLE pr_credentials (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  repository text NOT NULL,
  commit_sha text NOT NULL CHECK (commit_sha ~ '^[0-9a-f]{40}$'),
  run_id text NOT NULL,
  run_attempt integer NOT NULL,
  pull_request integer,
  fork boolean NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  reported_at timestamptz,
  conclusion text,
  check_run_id bigint,
  check_url text,
  CHECK (expires_at < created_at + interval '1 hour')
);
CREATE INDEX pr_credentials_run ON pr_credentials (org_id, lower(repository), commit_sha, run_id, run_attempt);
SELECT svc_protect_tenant_table('pr_credentials');
CREATE POLICY by_token ON pr_credentials FOR SELECT USING (token_hash = app_lookup('token_hash'));
