-- Daily activity for the console's 30-day charts (worker/overview/activity.ts): per organization,
-- environment and UTC day, rolled up every five minutes by the sweep as the maintenance role from the
-- rows of today and yesterday; a chart reads at most 30 rows an environment, never the raw rows.
CREATE TABLE activity_daily (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  -- '' for events that name no environment.
  env_id text NOT NULL,
  day date NOT NULL,
  events integer NOT NULL DEFAULT 0,
  runs_passed integer NOT NULL DEFAULT 0,
  runs_failed integer NOT NULL DEFAULT 0,
  -- Runs that ended errored or cancelled.
  runs_other integer NOT NULL DEFAULT 0,
  verdicts_failed integer NOT NULL DEFAULT 0,
  workload_runs integer NOT NULL DEFAULT 0,
  PRIMARY KEY (org_id, day, env_id)
);
SELECT svc_protect_tenant_table('activity_daily');

-- The model proxy keeps spend by month (provider_spend); the rollup keeps, per day, the month-to-date
-- figure it saw last that day and the month's budget then, so a chart draws spend against the budget.
CREATE TABLE spend_daily (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  provider text NOT NULL,
  day date NOT NULL,
  month_to_date_micros bigint NOT NULL,
  cap_micros bigint,
  PRIMARY KEY (org_id, day, provider)
);
SELECT svc_protect_tenant_table('spend_daily');

-- The maintenance role writes both, and keeps 35 days of them.
GRANT SELECT, INSERT, UPDATE, DELETE ON activity_daily, spend_daily TO svc_maintenance;
CREATE POLICY maintenance_rollup ON activity_daily TO svc_maintenance USING (true) WITH CHECK (true);
CREATE POLICY maintenance_rollup ON spend_daily TO svc_maintenance USING (true) WITH CHECK (true);

-- What it rolls up from, and only as far back as yesterday (UTC): events it already reads whole.
GRANT SELECT (org_id, env_id, outcome, finished_at, run_id) ON engine_runs TO svc_maintenance;
CREATE POLICY maintenance_activity ON engine_runs FOR SELECT TO svc_maintenance
  USING (finished_at >= (now() AT TIME ZONE 'UTC')::date - 1);
GRANT SELECT (org_id, run_id, verdict, recorded_at) ON run_verdicts TO svc_maintenance;
CREATE POLICY maintenance_activity ON run_verdicts FOR SELECT TO svc_maintenance
  USING (recorded_at >= (now() AT TIME ZONE 'UTC')::date - 1);
CREATE POLICY maintenance_activity ON workload_runs FOR SELECT TO svc_maintenance
  USING (requested_at >= (now() AT TIME ZONE 'UTC')::date - 1);
GRANT SELECT (org_id, provider, month, spent_micros) ON provider_spend TO svc_maintenance;
CREATE POLICY maintenance_activity ON provider_spend FOR SELECT TO svc_maintenance
  USING (month = date_trunc('month', now() AT TIME ZONE 'UTC')::date);
GRANT SELECT (org_id, provider, monthly_cap_micros) ON provider_budgets TO svc_maintenance;
CREATE POLICY maintenance_activity ON provider_budgets FOR SELECT TO svc_maintenance USING (true);
