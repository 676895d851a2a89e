-- The sweep (worker/sessions/prune.ts) deletes a session 31 days after it began. A session lives at most
-- 30 days (LIFETIME_DAYS) and its cookie as long, so after that no browser can present it, yet its row
-- kept the client address and user agent for good, and, for a session a deletion ended, the deleted
-- organization's name. As the maintenance role the sweep sees only those rows, and only the columns it
-- needs. The application's policies, one of which reads memberships, are the application role's own:
-- they were written for it, and the maintenance role may not read memberships.
ALTER POLICY by_token ON sessions TO svc_app;
ALTER POLICY own ON sessions TO svc_app;
ALTER POLICY member_of_org ON sessions TO svc_app;
CREATE INDEX sessions_created ON sessions (created_at);
GRANT SELECT (id, created_at), DELETE ON sessions TO svc_maintenance;
CREATE POLICY maintenance_ended ON sessions TO svc_maintenance USING (created_at < now() - interval '31 days');
