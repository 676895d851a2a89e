-- The sweep (worker/deletion/export-expiry.ts) removes the held export of a deleted organization from
-- the exports bucket once its link has expired, and marks it destroyed. As the maintenance role it
-- sees only held exports whose link expired, and may change only `destroyed_at` of those not yet
-- destroyed. (An UPDATE's new row must pass the SELECT policy too: that one does not ask for
-- `destroyed_at IS NULL`.)
GRANT SELECT (token_hash, object_key, expires_at, destroyed_at), UPDATE (destroyed_at) ON deletion_exports TO svc_maintenance;
CREATE POLICY maintenance_expired ON deletion_exports FOR SELECT TO svc_maintenance
  USING (object_key IS NOT NULL AND expires_at <= now());
CREATE POLICY maintenance_destroy ON deletion_exports FOR UPDATE TO svc_maintenance
  USING (destroyed_at IS NULL AND object_key IS NOT NULL AND expires_at <= now()) WITH CHECK (destroyed_at IS NOT NULL);
