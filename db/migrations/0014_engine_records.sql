-- Engine records (issue 11): what run.started, run.finished, verdict.recorded, artifact.stored,
-- golden.published, network.decision and workload.started project onto; the runtimes an
-- organization's engines run on; and the workload lifecycle (current version, explorations, retries).
-- Every projection is an idempotent upsert whose winner does not depend on arrival order.

-- A run as its engine names it (`runId` in the payload). Its start is the earliest run.started, its
-- end the earliest run.finished: a late run.started never reopens a finished run. `seq` orders the
-- console's pages (rows written by one statement share their `created_at`).
CREATE TABLE engine_runs (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  run_id text NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  env_id text,
  name text,
  -- The runtime's name as the engine reported it: kept as text, so removing the runtime keeps the history readable.
  runtime text,
  workload_run_id uuid,
  started_at timestamptz,
  started_event_id text,
  finished_at timestamptz,
  finished_event_id text,
  outcome text CHECK (outcome IN ('passed', 'failed', 'errored', 'cancelled')),
  duration_ms bigint CHECK (duration_ms >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, run_id),
  CHECK ((finished_at IS NULL) = (outcome IS NULL))
);
CREATE INDEX engine_runs_env ON engine_runs (org_id, env_id, seq DESC);
-- The runtimes page counts the runs that named each runtime.
CREATE INDEX engine_runs_runtime ON engine_runs (org_id, runtime) WHERE runtime IS NOT NULL;
SELECT svc_protect_tenant_table('engine_runs');

-- One verdict per check of a run; the latest (occurredAt, then event id) wins.
CREATE TABLE run_verdicts (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  run_id text NOT NULL,
  name text NOT NULL,
  verdict text NOT NULL CHECK (verdict IN ('pass', 'fail', 'warn', 'skip')),
  detail text,
  recorded_at timestamptz NOT NULL,
  event_id text NOT NULL,
  PRIMARY KEY (org_id, run_id, name)
);
SELECT svc_protect_tenant_table('run_verdicts');

-- Artifact metadata only, never contents: where the engine stored it. The latest report of a name wins.
CREATE TABLE run_artifacts (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  run_id text NOT NULL,
  name text NOT NULL,
  size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
  digest text NOT NULL,
  location text NOT NULL,
  content_type text,
  stored_at timestamptz NOT NULL,
  event_id text NOT NULL,
  PRIMARY KEY (org_id, run_id, name)
);
SELECT svc_protect_tenant_table('run_artifacts');

-- A published golden version is immutable: the first publication stands.
CREATE TABLE goldens (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  version text NOT NULL,
  digest text NOT NULL,
  location text,
  run_id text,
  env_id text,
  published_at timestamptz NOT NULL,
  event_id text NOT NULL,
  PRIMARY KEY (org_id, name, version)
);
CREATE INDEX goldens_run ON goldens (org_id, run_id) WHERE run_id IS NOT NULL;
SELECT svc_protect_tenant_table('goldens');

-- Egress decisions: one row per network.decision event (its idempotency key is the event's).
CREATE TABLE network_decisions (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  event_id text NOT NULL,
  occurred_at timestamptz NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  env_id text,
  run_id text,
  host text NOT NULL,
  port integer NOT NULL CHECK (port BETWEEN 1 AND 65535),
  allowed boolean NOT NULL,
  rule text,
  PRIMARY KEY (org_id, event_id, occurred_at)
);
CREATE INDEX network_decisions_env ON network_decisions (org_id, env_id, seq DESC);
SELECT svc_protect_tenant_table('network_decisions');

-- Runtimes an organization's engines run on. Removal is a mark, so a name can be registered again
-- and runs that named the old one stay readable.
CREATE TABLE runtimes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  labels text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz,
  removed_at timestamptz
);
CREATE UNIQUE INDEX runtimes_live_name ON runtimes (org_id, name) WHERE removed_at IS NULL;
SELECT svc_protect_tenant_table('runtimes');

-- Workload lifecycle: the current version (explorations are versions that are not current until
-- promoted), when the engine said a run started, and which run a retry repeats. A workload whose
-- current_version_id is null (made before this) reads its latest version as current.
ALTER TABLE workloads ADD COLUMN current_version_id uuid REFERENCES workload_versions (id);
ALTER TABLE workload_versions ADD COLUMN exploratory boolean NOT NULL DEFAULT false;
ALTER TABLE workload_versions ADD COLUMN promoted_at timestamptz;
ALTER TABLE workload_runs ADD COLUMN started_at timestamptz;
ALTER TABLE workload_runs ADD COLUMN retry_of uuid REFERENCES workload_runs (id);
CREATE INDEX runtime_commands_run ON runtime_commands (org_id, run_id) WHERE run_id IS NOT NULL;
