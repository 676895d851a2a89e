-- The environment projection moves into the transaction that stores its batch (worker/environments/
-- project.ts): one lock statement and one upsert for every environment a batch touches, where each
-- environment's object ran a transaction of its own (bench/README.md). Both are planned once per backend;
-- SECURITY INVOKER: row-level security applies inside them as anywhere, the organization the
-- transaction's own. The per-environment functions of 0040 and 0042 go with the object's projection.

-- The environments named locked for the projection, in one order for every transaction (so two
-- batches never wait on each other both ways): a transaction-scoped advisory lock on each name first,
-- since a row not yet created has nothing to lock and two batches may both create it; then the rows
-- that exist, locked too, against anything else that writes them. Answers the rows that exist.
CREATE FUNCTION svc_lock_environments(p_envs text[])
RETURNS TABLE (env_id text, repository text, branch text, pull_request integer, state text, last_sequence bigint, last_event_at timestamptz,
  started_at timestamptz, ttl_seconds double precision, expires_at timestamptz, preview_urls text[])
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  k bigint;
BEGIN
  FOR k IN SELECT DISTINCT hashtextextended(app_org_id()::text || '/' || e, 0) FROM unnest(p_envs) AS e ORDER BY 1 LOOP
    PERFORM pg_advisory_xact_lock(k);
  END LOOP;
  RETURN QUERY
  SELECT e.env_id, e.repository, e.branch, e.pull_request, e.state, e.last_sequence, e.last_event_at, e.started_at, e.ttl_seconds,
    e.expires_at, e.preview_urls
  FROM environments e WHERE e.org_id = app_org_id() AND e.env_id = ANY (p_envs) ORDER BY e.env_id FOR UPDATE;
END $$;

-- The projected rows written in one statement: a JSON array of objects, one per environment.
CREATE FUNCTION svc_upsert_environments(p_rows jsonb)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO environments (org_id, env_id, repository, branch, pull_request, state, last_sequence, last_event_at,
                            started_at, ttl_seconds, expires_at, preview_urls)
  SELECT app_org_id(), r.env_id, r.repository, r.branch, r.pull_request, r.state, r.last_sequence, r.last_event_at,
         r.started_at, r.ttl_seconds, r.expires_at, r.preview_urls
  FROM jsonb_to_recordset(p_rows) AS r(env_id text, repository text, branch text, pull_request integer, state text, last_sequence bigint,
    last_event_at timestamptz, started_at timestamptz, ttl_seconds double precision, expires_at timestamptz, preview_urls text[])
  ON CONFLICT (org_id, env_id) DO UPDATE SET
    repository = EXCLUDED.repository, branch = EXCLUDED.branch, pull_request = EXCLUDED.pull_request,
    state = EXCLUDED.state, last_sequence = EXCLUDED.last_sequence, last_event_at = EXCLUDED.last_event_at,
    started_at = EXCLUDED.started_at, ttl_seconds = EXCLUDED.ttl_seconds, expires_at = EXCLUDED.expires_at,
    preview_urls = EXCLUDED.preview_urls,
    updated_at = now();
END $$;

DROP FUNCTION svc_locked_environment(text);
DROP FUNCTION svc_upsert_environment(text, text, text, integer, text, bigint, timestamptz, timestamptz, double precision, timestamptz, text[]);
