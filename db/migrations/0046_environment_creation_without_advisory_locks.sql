-- The projection's creation race settled by the table's own key instead of advisory locks (0045): an
-- advisory lock takes an entry of PostgreSQL's shared lock table until the transaction ends, so a batch
-- naming 500 new environments took 500, and a few such batches at once could fill the table for every
-- organization. Now the lock statement locks the rows that exist (in envId order, as before), and the
-- write inserts a row the projection created with ON CONFLICT DO NOTHING: it waits for a transaction
-- creating the same environment, and answers the environments another transaction created meanwhile,
-- which the projection then locks and applies its events to again (worker/environments/store.ts).

CREATE OR REPLACE FUNCTION svc_lock_environments(p_envs text[])
RETURNS TABLE (env_id text, repository text, branch text, pull_request integer, state text, last_sequence bigint, last_event_at timestamptz,
  started_at timestamptz, ttl_seconds double precision, expires_at timestamptz, preview_urls text[])
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT e.env_id, e.repository, e.branch, e.pull_request, e.state, e.last_sequence, e.last_event_at, e.started_at, e.ttl_seconds,
    e.expires_at, e.preview_urls
  FROM environments e WHERE e.org_id = app_org_id() AND e.env_id = ANY (p_envs) ORDER BY e.env_id FOR UPDATE;
END $$;

DROP FUNCTION svc_upsert_environments(jsonb);

-- The projected rows: a JSON array of objects, one per environment, `created` when the projection made
-- the row from none (the others' rows are locked by this transaction). Answers the environments whose
-- row another transaction created first.
CREATE FUNCTION svc_write_environments(p_rows jsonb)
RETURNS TABLE (taken text)
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE environments e SET
    repository = r.repository, branch = r.branch, pull_request = r.pull_request, state = r.state, last_sequence = r.last_sequence,
    last_event_at = r.last_event_at, started_at = r.started_at, ttl_seconds = r.ttl_seconds, expires_at = r.expires_at,
    preview_urls = r.preview_urls, updated_at = now()
  FROM jsonb_to_recordset(p_rows) AS r(env_id text, created boolean, repository text, branch text, pull_request integer, state text,
    last_sequence bigint, last_event_at timestamptz, started_at timestamptz, ttl_seconds double precision, expires_at timestamptz, preview_urls text[])
  WHERE NOT r.created AND e.org_id = app_org_id() AND e.env_id = r.env_id;

  RETURN QUERY
  WITH wanted AS (
    SELECT * FROM jsonb_to_recordset(p_rows) AS r(env_id text, created boolean, repository text, branch text, pull_request integer,
      state text, last_sequence bigint, last_event_at timestamptz, started_at timestamptz, ttl_seconds double precision,
      expires_at timestamptz, preview_urls text[])
    WHERE r.created
  ), made AS (
    -- In envId order, as every batch inserts: two batches creating the same environments wait in one order.
    INSERT INTO environments (org_id, env_id, repository, branch, pull_request, state, last_sequence, last_event_at,
                              started_at, ttl_seconds, expires_at, preview_urls)
    SELECT app_org_id(), w.env_id, w.repository, w.branch, w.pull_request, w.state, w.last_sequence, w.last_event_at,
           w.started_at, w.ttl_seconds, w.expires_at, w.preview_urls
    FROM wanted w ORDER BY w.env_id
    ON CONFLICT (org_id, env_id) DO NOTHING
    RETURNING environments.env_id
  )
  SELECT w.env_id FROM wanted w WHERE NOT EXISTS (SELECT 1 FROM made m WHERE m.env_id = w.env_id);
END $$;
