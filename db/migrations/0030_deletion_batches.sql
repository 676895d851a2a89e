-- The Delete step of an organization's deletion removes its rows in bounded batches, each its own short
-- transaction, over as many sweeps as it takes (worker/deletion/batches.ts); the organization's row,
-- whose cascade now reaches only bounded tables, goes last.

-- Its progress, shown by deletion.status: rows removed so far, counted by each batch's statement.
ALTER TABLE deletions ADD COLUMN rows_removed bigint NOT NULL DEFAULT 0;

-- A batch of workload runs may remove a run whose retry is left for a later batch: the retry forgets
-- it (runs are deleted only with their organization). The foreign keys' checks on every removed run
-- look the referencing rows up by these indexes, not by a scan of the table per row.
ALTER TABLE workload_runs DROP CONSTRAINT workload_runs_retry_of_fkey,
  ADD CONSTRAINT workload_runs_retry_of_fkey FOREIGN KEY (retry_of) REFERENCES workload_runs (id) ON DELETE SET NULL;
CREATE INDEX workload_runs_retry_of ON workload_runs (retry_of) WHERE retry_of IS NOT NULL;
CREATE INDEX runtime_commands_run_id ON runtime_commands (run_id) WHERE run_id IS NOT NULL;

-- The events go by the maintenance role, partition by partition (it owns them), no longer by the
-- application role.
REVOKE DELETE ON events FROM svc_app;

-- Tables the application role may not delete from stay so: the audit log (append-only), the record
-- of workflow dispatches, repository claims and model clients' grants (revoked, never deleted). The
-- maintenance role removes their rows of an organization whose deletion is due at its Delete step,
-- and no others: the permissive policy shows it those (through its view of the due deletions,
-- maintenance_due), and the restrictive one keeps any other policy (the tenant policy, with an
-- organization chosen) from letting it delete more. It reads only the key it picks a batch by.
GRANT SELECT (step) ON deletions TO svc_maintenance;
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['audit_log', 'workflow_dispatches', 'repository_claims', 'protocol_grants'] LOOP
    EXECUTE format('GRANT DELETE ON %I TO svc_maintenance', t);
    EXECUTE format('CREATE POLICY maintenance_deletion ON %I TO svc_maintenance
      USING (org_id IN (SELECT d.org_id FROM deletions d WHERE d.step = %L))', t, 'delete');
    EXECUTE format('CREATE POLICY maintenance_deletion_only ON %I AS RESTRICTIVE FOR DELETE TO svc_maintenance
      USING (org_id IN (SELECT d.org_id FROM deletions d WHERE d.step = %L))', t, 'delete');
  END LOOP;
END $$;
GRANT SELECT (org_id, seq) ON audit_log TO svc_maintenance;
GRANT SELECT (org_id, id) ON workflow_dispatches, repository_claims, protocol_grants TO svc_maintenance;

-- Each of its batches counts itself in the deletion's progress, as the application role's do.
GRANT SELECT (rows_removed), UPDATE (rows_removed) ON deletions TO svc_maintenance;
CREATE POLICY maintenance_progress ON deletions FOR UPDATE TO svc_maintenance
  USING (step = 'delete' AND called_off_at IS NULL AND next_attempt_at <= now());
