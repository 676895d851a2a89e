-- The sweep deletes sign-in links (worker/magic-links/prune.ts) and device sign-ins
-- (worker/device/prune.ts) once they are over; both were kept for good. A link works once, for 15
-- minutes, and names an e-mail address, kept even for an address that never signed in: it goes at its
-- expiry (a used, an expired and an unknown link read alike). A device sign-in lives 15 minutes: it goes
-- a day after, so that a CLI polling just after its expiry is still told expired_token (RFC 8628), not
-- that the code is unknown. As the maintenance role the sweep sees only those rows, and only the
-- columns it needs.
CREATE INDEX magic_links_expiry ON magic_links (expires_at);
GRANT SELECT (id, expires_at), DELETE ON magic_links TO svc_maintenance;
CREATE POLICY maintenance_expired ON magic_links TO svc_maintenance USING (expires_at <= now());

CREATE INDEX device_authorizations_expiry ON device_authorizations (expires_at);
GRANT SELECT (id, expires_at), DELETE ON device_authorizations TO svc_maintenance;
CREATE POLICY maintenance_expired ON device_authorizations TO svc_maintenance USING (expires_at < now() - interval '1 day');
