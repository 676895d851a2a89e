-- Installation analytics (spec: Beacon rules, Limits, Roles and permissions `analytics.read`).
-- The site beacon's stream is insert-only for the application role: it records, it never reads back
-- (a read raises a permission error). The maintenance role reads it once a day, rolls it and the
-- control plane's own usage into daily aggregates, and deletes raw events past their retention; the
-- aggregates are kept and are what the dashboard reads.

-- One row per recorded beacon event. `id` is the browser's event identifier: a retried event collides
-- on it. The session is stored only as a keyed pseudonym (HMAC under SVC_ANALYTICS_SURROGATE_SECRET).
CREATE TABLE site_events (
  id uuid PRIMARY KEY,
  name text NOT NULL CHECK (name IN ('page_landed', 'signup_reached', 'contact_requested')),
  session_key text NOT NULL CHECK (session_key ~ '^[0-9a-f]{64}$'),
  channel text NOT NULL CHECK (channel IN ('direct', 'search', 'social', 'email', 'referral', 'campaign', 'internal')),
  page text NOT NULL CHECK (char_length(page) <= 120),
  campaign text CHECK (char_length(campaign) <= 64),
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX site_events_received ON site_events (received_at);

-- Events refused (unknown name, undeclared field, malformed) and retried duplicates: counted, with
-- the reason only (an unknown name is not stored: it could be anything).
CREATE TABLE site_event_rejects (
  reason text NOT NULL CHECK (reason IN ('unknown_name', 'undeclared_field', 'invalid_field', 'malformed', 'duplicate')),
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX site_event_rejects_received ON site_event_rejects (received_at);

GRANT INSERT ON site_events, site_event_rejects TO svc_app;
GRANT SELECT, DELETE ON site_events, site_event_rejects TO svc_maintenance;

-- Daily aggregates, kept when the raw events are deleted. `dimension` is '' for a day's total.
CREATE TABLE analytics_daily (
  day date NOT NULL,
  metric text NOT NULL,
  dimension text NOT NULL DEFAULT '',
  value bigint NOT NULL,
  PRIMARY KEY (day, metric, dimension)
);

-- Weekly retention cohorts: each organization under a keyed pseudonym (never its id), the week it
-- was created in, and the weeks it was active (its engines reported events).
CREATE TABLE analytics_org_cohorts (
  org_key text PRIMARY KEY,
  cohort_week date NOT NULL
);
CREATE TABLE analytics_org_active_weeks (
  org_key text NOT NULL,
  week date NOT NULL,
  PRIMARY KEY (org_key, week)
);

-- Since when the raw beacon events are whole: raised each time the rollup deletes older ones, so a
-- later run (retention changed or removed) never recomputes a day whose raw events are gone.
CREATE TABLE analytics_rollup_state (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  raw_whole_from timestamptz NOT NULL
);
GRANT SELECT, INSERT, UPDATE ON analytics_rollup_state TO svc_maintenance;

GRANT SELECT ON analytics_daily, analytics_org_cohorts, analytics_org_active_weeks TO svc_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON analytics_daily, analytics_org_cohorts, analytics_org_active_weeks TO svc_maintenance;

-- The rollup reads the control plane's own usage across organizations as the maintenance role: only
-- the columns it counts (identifiers and timestamps), nothing of what the rows hold.
GRANT SELECT (id, created_at) ON organizations TO svc_maintenance;
CREATE POLICY maintenance_rollup ON organizations FOR SELECT TO svc_maintenance USING (true);
GRANT SELECT (id, created_at) ON people TO svc_maintenance;
CREATE POLICY maintenance_rollup ON people FOR SELECT TO svc_maintenance USING (true);
GRANT SELECT (org_id, created_at) ON environments TO svc_maintenance;
CREATE POLICY maintenance_rollup ON environments FOR SELECT TO svc_maintenance USING (true);
-- Runs and activity are counted from the engine's events, which the maintenance role already reads
-- (it owns the partitions); workload_runs stays visible to it only when overdue (the deadline sweep).
