-- Organization deletion (spec: Organization deletion): requested by an owner, advanced one step at a
-- time by a Cron Trigger, each step recorded in the transaction of its change, so an interrupted
-- deletion resumes where it stopped.
CREATE TABLE deletions (
  org_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  requested_by uuid REFERENCES people (id) ON DELETE SET NULL,
  requested_at timestamptz NOT NULL DEFAULT now(),
  -- The next step to run.
  step text NOT NULL DEFAULT 'stop' CHECK (step IN ('stop', 'end_subscription', 'wait', 'revoke', 'export', 'delete')),
  called_off_at timestamptz,
  wait_until timestamptz,
  -- The subscriptions this deletion cancelled at period end: resumed if it is called off.
  cancelled_subscriptions text[] NOT NULL DEFAULT '{}',
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  -- Names the held export (deletion_exports) the requester's link opens.
  export_token_hash text NOT NULL
);
SELECT svc_protect_tenant_table('deletions');

CREATE TABLE deletion_steps (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  step text NOT NULL,
  done_at timestamptz NOT NULL DEFAULT now(),
  note text NOT NULL,
  PRIMARY KEY (org_id, step)
);
SELECT svc_protect_tenant_table('deletion_steps');

-- The Cron Trigger finds due deletions across organizations as the maintenance role, which sees
-- only those (and, through its grant, only their organization and schedule); each is then advanced
-- as the application role acting as its organization.
GRANT SELECT (org_id, next_attempt_at, called_off_at) ON deletions TO svc_maintenance;
CREATE POLICY maintenance_due ON deletions FOR SELECT TO svc_maintenance USING (called_off_at IS NULL AND next_attempt_at <= now());

-- The held export of a deleted organization: it outlives the organization, and is found only by the
-- hash of the token in the requester's link.
CREATE TABLE deletion_exports (
  token_hash text PRIMARY KEY,
  org_slug text NOT NULL,
  object_key text,
  size_bytes bigint,
  built_at timestamptz,
  expires_at timestamptz,
  destroyed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE deletion_exports ENABLE ROW LEVEL SECURITY;
ALTER TABLE deletion_exports FORCE ROW LEVEL SECURITY;
CREATE POLICY issue ON deletion_exports FOR INSERT WITH CHECK (true);
CREATE POLICY by_token ON deletion_exports USING (token_hash = app_lookup('deletion_export_hash'));
GRANT SELECT, INSERT, UPDATE ON deletion_exports TO svc_app;

-- The last step deletes the organization's row (every tenant table cascades from it) and its events
-- (partitioned, so not bound by a foreign key).
GRANT DELETE ON organizations TO svc_app;
GRANT DELETE ON events TO svc_app;
