-- The environment projection's first statement as a function, planned once per backend (as the
-- claim's and the heartbeat's are: 0039_planned_once.sql). It ran once per environment a batch of events
-- touched, planned each time it was sent in far more time than it took to run (bench/README.md).
-- SECURITY INVOKER: row-level security applies inside it as anywhere.

-- The environment's row locked for the projection (all null when there is none), the environment's
-- earliest workload deadline for its object's alarm (the projection changes no workload run), and
-- whether a console watches the organization live.
CREATE FUNCTION svc_locked_environment(p_env text)
RETURNS TABLE (repository text, branch text, pull_request integer, state text, last_sequence bigint, last_event_at timestamptz,
  started_at timestamptz, ttl_seconds double precision, expires_at timestamptz, preview_urls text[], next_deadline timestamptz, watched boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH env AS (
    SELECT e.repository, e.branch, e.pull_request, e.state, e.last_sequence, e.last_event_at, e.started_at, e.ttl_seconds, e.expires_at, e.preview_urls
    FROM environments e WHERE e.org_id = app_org_id() AND e.env_id = p_env FOR UPDATE
  ), next AS (
    SELECT min(w.deadline_at) AS next_deadline FROM workload_runs w
    WHERE w.org_id = app_org_id() AND w.env_id = p_env AND w.state IN ('requested', 'accepted')
  )
  SELECT env.repository, env.branch, env.pull_request, env.state, env.last_sequence, env.last_event_at, env.started_at, env.ttl_seconds,
    env.expires_at, env.preview_urls, next.next_deadline,
    (SELECT coalesce(o.watched_until > now(), false) FROM organizations o WHERE o.id = app_org_id())
  FROM next LEFT JOIN env ON true;
END $$;
