-- The sweep (worker/mcp/prune.ts) deletes model clients' refresh tokens once they expired. A spent token
-- is kept so that presenting it again is recognised as reuse until it would have expired, and a
-- rotation removes its own family's expired ones; a family that stops rotating (the connection ended,
-- the client gone, its 90 days over) kept all of its tokens forever, some 720 for a client that
-- refreshed hourly. Past its expiry nothing reads a token (it is refused as unknown, and a grant's end
-- counts only live ones). As the maintenance role the sweep sees only expired ones, and only the
-- columns it needs.
CREATE INDEX protocol_refresh_tokens_expiry ON protocol_refresh_tokens (expires_at);
GRANT SELECT (token_hash, expires_at), DELETE ON protocol_refresh_tokens TO svc_maintenance;
CREATE POLICY maintenance_expired_refresh ON protocol_refresh_tokens TO svc_maintenance USING (expires_at <= now());
