-- Every list the console shows and every member of the data export reads a page as one range of an
-- index: the rows after the last page's key, in that key's order (issue 36). These are the keys the
-- existing indexes did not cover. Lists newest first scan them backwards.
CREATE INDEX environments_recent ON environments (org_id, last_event_at, env_id);
CREATE INDEX workload_runs_requested ON workload_runs (org_id, requested_at, id);
CREATE INDEX workload_runs_env_requested ON workload_runs (org_id, env_id, requested_at, id);
CREATE INDEX workload_runs_org ON workload_runs (org_id, id);
CREATE INDEX memberships_joined ON memberships (org_id, created_at, person_id);
CREATE INDEX tokens_created ON tokens (org_id, created_at, id);
DROP INDEX tokens_org;
CREATE INDEX tokens_org ON tokens (org_id, id);
CREATE INDEX invitations_org ON invitations (org_id, id);
DROP INDEX data_exports_org;
CREATE INDEX data_exports_org ON data_exports (org_id, created_at, id);

-- The sweep (worker/tokens/prune.ts) deletes engine tokens of identity exchanges once their 15 minutes
-- are over, in batches. As the maintenance role it sees only those, and only the columns it needs.
CREATE INDEX tokens_exchange_expiry ON tokens (expires_at) WHERE binding_id IS NOT NULL;
GRANT SELECT (id, binding_id, expires_at), DELETE ON tokens TO svc_maintenance;
CREATE POLICY maintenance_expired_exchange ON tokens TO svc_maintenance USING (binding_id IS NOT NULL AND expires_at <= now());
