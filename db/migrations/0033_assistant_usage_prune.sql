-- assistant_usage keeps one row per person and UTC day, read only for that day's limits, and nothing
-- removed them. The sweep (worker/assistant/prune.ts) deletes the days older than 35 before today
-- (UTC) as the maintenance role, which sees only those, and only the day: 35 here and the code's
-- USAGE_KEPT_DAYS are one rule (test/assistant/prune.test.ts holds them together).
CREATE INDEX assistant_usage_day ON assistant_usage (day);
GRANT SELECT (day), DELETE ON assistant_usage TO svc_maintenance;
CREATE POLICY maintenance_old_days ON assistant_usage TO svc_maintenance USING (day < (now() AT TIME ZONE 'UTC')::date - 35);
