-- The environment projection's last statement as a function, planned once per backend, as its first is
-- (0040_projection_planned_once.sql): sent with the COMMIT once per environment a batch of events
-- touches, the upsert as a simple query was parsed and planned every time, under row-level security,
-- in more of PostgreSQL's time than it took to run (bench/README.md). SECURITY INVOKER: row-level
-- security applies inside it as anywhere; the organization is the transaction's own.
CREATE FUNCTION svc_upsert_environment(p_env text, p_repository text, p_branch text, p_pull_request integer, p_state text,
  p_last_sequence bigint, p_last_event_at timestamptz, p_started_at timestamptz, p_ttl_seconds double precision,
  p_expires_at timestamptz, p_preview_urls text[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO environments (org_id, env_id, repository, branch, pull_request, state, last_sequence, last_event_at,
                            started_at, ttl_seconds, expires_at, preview_urls)
  VALUES (app_org_id(), p_env, p_repository, p_branch, p_pull_request, p_state, p_last_sequence, p_last_event_at,
          p_started_at, p_ttl_seconds, p_expires_at, p_preview_urls)
  ON CONFLICT (org_id, env_id) DO UPDATE SET
    repository = EXCLUDED.repository, branch = EXCLUDED.branch, pull_request = EXCLUDED.pull_request,
    state = EXCLUDED.state, last_sequence = EXCLUDED.last_sequence, last_event_at = EXCLUDED.last_event_at,
    started_at = EXCLUDED.started_at, ttl_seconds = EXCLUDED.ttl_seconds, expires_at = EXCLUDED.expires_at,
    preview_urls = EXCLUDED.preview_urls,
    updated_at = now();
END $$;
