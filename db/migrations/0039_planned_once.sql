-- The engines' hottest statements as functions, planned once per backend. A simple query is planned
-- every time it is sent, and these were planned in far more time than they ran: the token's statement
-- 0.5 ms to plan (half of it row-level security's policies) and 0.08 ms to run, a claim 0.6 and 0.1
-- (bench/README.md). PL/pgSQL prepares each statement of a function on its first call in a backend and
-- keeps the plan, so a kept connection (an environment object's) or a pooled backend pays it once.
-- They run as their caller (SECURITY INVOKER): row-level security applies inside them as anywhere.

-- The live token behind the transaction's token_hash look-up, in the organization the transaction acts
-- as (with act_as_token_org, the token's own organization, chosen first), its repository claim still
-- live when identity exchange minted it, with its organization; last_used_at is kept to the minute (one
-- write per token per minute, not one per request). With `kinds`, it also decides the route's
-- admission from the same row, as `admit` in worker/auth/bearer.ts does in code (a live token of one of
-- `kinds`, its organization not suspended unless allowed, on `required_plan` when one is named), and
-- sets app.admitted_token to the token's id for the work sent in the same round trip (svc_claim_run and
-- svc_heartbeat do nothing without it); it is cleared first, so an unknown token admits nothing.
CREATE FUNCTION svc_principal(act_as_token_org boolean, kinds text[], allow_suspended boolean, required_plan text)
RETURNS TABLE (id uuid, org_id uuid, kind text, scopes text[], person_id uuid, slug text, plan text, suspended boolean, watched boolean, admitted_token text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  PERFORM set_config('app.admitted_token', '', true);
  IF act_as_token_org THEN
    PERFORM set_config('app.org_id', t.org_id::text, true) FROM tokens t WHERE t.token_hash = current_setting('app.lookup_token_hash');
  END IF;
  RETURN QUERY
  WITH token AS (
    SELECT t.id, t.org_id, t.kind, t.scopes, t.person_id FROM tokens t
    WHERE t.token_hash = current_setting('app.lookup_token_hash') AND t.org_id = app_org_id() AND t.revoked_at IS NULL
      AND (t.expires_at IS NULL OR t.expires_at > now())
      AND (t.binding_id IS NULL OR EXISTS (SELECT 1 FROM repository_claims c WHERE c.id = t.binding_id AND c.revoked_at IS NULL))
  ), touched AS (
    UPDATE tokens SET last_used_at = now() FROM token
    WHERE tokens.id = token.id AND (tokens.last_used_at IS NULL OR tokens.last_used_at < now() - interval '1 minute')
  )
  SELECT token.id, token.org_id, token.kind, token.scopes, token.person_id, o.slug, o.plan, o.suspended_at IS NOT NULL,
    coalesce(o.watched_until > now(), false),
    CASE WHEN kinds IS NOT NULL AND token.kind = ANY (kinds) AND (allow_suspended OR o.suspended_at IS NULL)
           AND (required_plan IS NULL OR o.plan = required_plan)
         THEN set_config('app.admitted_token', token.id::text, true) ELSE '' END
  FROM token JOIN organizations o ON o.id = token.org_id;
END $$;

-- A claim first looks for the run its lease id already holds (a retried claim answers it again): one
-- entry of this index, where before it read every held run of the environment (all 2,000 of
-- test/db/list-plans.test.ts's), on every claim.
CREATE INDEX workload_runs_lease ON workload_runs (lease_id) WHERE state = 'accepted';

-- The claim (worker/workloads/claim.ts says how it reads): for the token the transaction admitted only,
-- the oldest run of the environment that is requested, or whose lease lapsed, each the first row of its
-- own index in the claim's order (workload_runs_claimable, workload_runs_leases), whichever was
-- requested first; both are locked with SKIP LOCKED, and the one not taken is free again at the COMMIT.
-- A claim retried with the same lease id by the same token, while it still holds that run, answers it
-- again. Always one row: whether the environment exists, and the run taken, if any.
CREATE FUNCTION svc_claim_run(p_org uuid, p_env text, p_lease uuid, lease_seconds integer, silence_seconds integer)
RETURNS TABLE (env_exists boolean, id uuid, env_id text, requested_at timestamptz, claims integer, lease_expires_at timestamptz,
  deadline_at timestamptz, workload_id uuid, workload_name text, version_id uuid, version_number integer, compiled jsonb)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  holder uuid := NULLIF(current_setting('app.admitted_token', true), '')::uuid;
BEGIN
  RETURN QUERY
  WITH again AS (
    SELECT * FROM workload_runs
    WHERE org_id = p_org AND env_id = p_env AND state = 'accepted' AND lease_id = p_lease AND holder_token_id = holder
  ), waiting AS (
    SELECT id, requested_at FROM workload_runs
    WHERE org_id = p_org AND env_id = p_env AND state = 'requested' AND deadline_at > now()
    ORDER BY requested_at, id
    LIMIT 1
    FOR UPDATE SKIP LOCKED
  ), lapsed AS (
    SELECT id, requested_at FROM workload_runs
    WHERE org_id = p_org AND env_id = p_env AND state = 'accepted' AND lease_expires_at <= now() AND deadline_at > now()
    ORDER BY requested_at, id
    LIMIT 1
    FOR UPDATE SKIP LOCKED
  ), candidate AS (
    SELECT id FROM (SELECT * FROM waiting UNION ALL SELECT * FROM lapsed) AS either ORDER BY requested_at, id LIMIT 1
  ), claimed AS (
    -- The run by its id (a scalar subquery), not joined: on statistics that have not seen a burst of
    -- requests (a new organization's thousands of runs, expected to be one), the planner joined the
    -- candidate by reading every run of the organization (test/db/list-plans.test.ts).
    UPDATE workload_runs r SET
      state = 'accepted', lease_id = p_lease, lease_ids = array_append(r.lease_ids, p_lease),
      lease_expires_at = now() + make_interval(secs => lease_seconds), deadline_at = now() + make_interval(secs => silence_seconds),
      holder_token_id = holder, claims = r.claims + 1
    WHERE r.id = (SELECT id FROM candidate) AND NOT EXISTS (SELECT 1 FROM again) AND holder IS NOT NULL
    RETURNING r.*
  ), taken AS (SELECT * FROM claimed UNION ALL SELECT * FROM again)
  SELECT EXISTS (SELECT 1 FROM environments e WHERE e.org_id = p_org AND e.env_id = p_env), run.*
  FROM (SELECT 1) one LEFT JOIN (
    SELECT c.id, c.env_id, c.requested_at, c.claims, c.lease_expires_at, c.deadline_at,
           w.id AS workload_id, w.name AS workload_name, v.id AS version_id, v.number AS version_number, v.compiled
    FROM taken c JOIN workloads w ON w.id = c.workload_id JOIN workload_versions v ON v.id = c.version_id
  ) run ON true;
END $$;

-- The heartbeat (worker/workloads/heartbeat.ts): extends the lease and the deadline of a run held under
-- p_lease, for a token the transaction admitted only; always one row, which also says whether the run
-- exists, for a refusal's 404 or 409.
CREATE FUNCTION svc_heartbeat(p_run uuid, p_lease uuid, lease_seconds integer, silence_seconds integer)
RETURNS TABLE (lease_expires_at timestamptz, deadline_at timestamptz, run_exists boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH beat AS (
    UPDATE workload_runs SET lease_expires_at = now() + make_interval(secs => lease_seconds),
      deadline_at = now() + make_interval(secs => silence_seconds)
    WHERE org_id = app_org_id() AND id = p_run AND state = 'accepted' AND lease_id = p_lease AND deadline_at > now()
      AND NULLIF(current_setting('app.admitted_token', true), '') IS NOT NULL
    RETURNING lease_expires_at, deadline_at
  )
  SELECT beat.lease_expires_at, beat.deadline_at, EXISTS (SELECT 1 FROM workload_runs r WHERE r.org_id = app_org_id() AND r.id = p_run)
  FROM (SELECT 1) AS one LEFT JOIN beat ON true;
END $$;

REVOKE EXECUTE ON FUNCTION svc_principal(boolean, text[], boolean, text), svc_claim_run(uuid, text, uuid, integer, integer),
  svc_heartbeat(uuid, uuid, integer, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_principal(boolean, text[], boolean, text), svc_claim_run(uuid, text, uuid, integer, integer),
  svc_heartbeat(uuid, uuid, integer, integer) TO svc_app;
