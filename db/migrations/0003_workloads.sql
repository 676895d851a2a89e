-- Engine work: workload definitions and versions, workload runs with leases, runtime commands.

CREATE TABLE workloads (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  archived_at timestamptz,
  UNIQUE (org_id, name)
);
SELECT svc_protect_tenant_table('workloads');

-- `compiled` is the form an engine runs as it is.
CREATE TABLE workload_versions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  workload_id uuid NOT NULL REFERENCES workloads (id) ON DELETE CASCADE,
  number integer NOT NULL CHECK (number >= 1),
  compiled jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workload_id, number)
);
SELECT svc_protect_tenant_table('workload_versions');

-- A run moves requested -> accepted (claimed, with a lease) -> finished | cancelled | abandoned.
-- `lease_id` is the fencing token: every heartbeat and final event must present the current one.
-- `lease_ids` remembers every lease ever granted, so a final event from an engine that lost the run
-- can be recognised as such.
CREATE TABLE workload_runs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  env_id text NOT NULL,
  workload_id uuid NOT NULL REFERENCES workloads (id),
  version_id uuid NOT NULL REFERENCES workload_versions (id),
  state text NOT NULL DEFAULT 'requested'
    CHECK (state IN ('requested', 'accepted', 'finished', 'cancelled', 'abandoned')),
  requested_at timestamptz NOT NULL DEFAULT now(),
  deadline_at timestamptz NOT NULL,
  lease_id uuid,
  lease_ids uuid[] NOT NULL DEFAULT '{}',
  lease_expires_at timestamptz,
  holder_token_id uuid,
  claims integer NOT NULL DEFAULT 0,
  lost_holder_tried_to_end boolean NOT NULL DEFAULT false,
  abandon_reason text CHECK (abandon_reason IN
    ('never_claimed', 'claimed_then_quiet', 'changed_hands_then_quiet', 'changed_hands_first_engine_tried_to_end')),
  ended_at timestamptz,
  end_event_id text,
  CHECK ((state = 'abandoned') = (abandon_reason IS NOT NULL))
);
CREATE INDEX workload_runs_waiting ON workload_runs (org_id, env_id, requested_at) WHERE state IN ('requested', 'accepted');
CREATE INDEX workload_runs_deadline ON workload_runs (deadline_at) WHERE state IN ('requested', 'accepted');
SELECT svc_protect_tenant_table('workload_runs');

-- Teardowns and cancellations waiting for an engine. A teardown is confirmed by the engine's own
-- environment.torn_down event, not by its acknowledgement.
CREATE TABLE runtime_commands (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  env_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('teardown', 'cancel')),
  run_id uuid REFERENCES workload_runs (id),
  state text NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'leased', 'acknowledged')),
  lease_id uuid,
  lease_expires_at timestamptz,
  holder_token_id uuid,
  outcome text CHECK (outcome IN ('done', 'failed')),
  message text,
  created_at timestamptz NOT NULL DEFAULT now(),
  acknowledged_at timestamptz,
  confirmed_at timestamptz,
  CHECK ((kind = 'cancel') = (run_id IS NOT NULL))
);
CREATE INDEX runtime_commands_waiting ON runtime_commands (org_id, created_at) WHERE state <> 'acknowledged';
SELECT svc_protect_tenant_table('runtime_commands');

-- The deadline sweep backstop (a Cron Trigger) runs as the maintenance role across organizations:
-- it may read and abandon overdue runs, nothing else.
-- (An UPDATE ... RETURNING must also pass a SELECT policy with the new row, hence two policies.)
CREATE POLICY maintenance_sweep_read ON workload_runs FOR SELECT TO svc_maintenance
  USING (deadline_at < now());
CREATE POLICY maintenance_sweep ON workload_runs FOR UPDATE TO svc_maintenance
  USING (state IN ('requested', 'accepted') AND deadline_at < now())
  WITH CHECK (state = 'abandoned');
GRANT SELECT, UPDATE (state, abandon_reason, lease_expires_at) ON workload_runs TO svc_maintenance;
