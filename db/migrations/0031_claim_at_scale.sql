-- A claim takes the environment's oldest requested run, or the oldest one whose lease lapsed (issue 36).
-- As one query over both states, no index could give its rows in order (`workload_runs_waiting` held
-- requested and accepted runs together, by request time without the id the claim also orders by):
-- PostgreSQL read every waiting and every held run of the environment, and sorted them, for each
-- claim, so a claim cost more with every run waiting or held.
-- Each half of the claim now reads its own index, in the claim's order, and stops at the first row.
CREATE INDEX workload_runs_claimable ON workload_runs (org_id, env_id, requested_at, id) WHERE state = 'requested';
CREATE INDEX workload_runs_leases ON workload_runs (org_id, env_id, lease_expires_at) WHERE state = 'accepted';

-- The environment's next deadline (its Durable Object's alarm, re-armed on each run requested) was
-- read from `workload_runs_deadline`, every organization's waiting runs by deadline, filtered to the
-- environment: now the first entry of the environment's own. The global index stays for the Cron
-- sweep, which abandons overdue runs everywhere.
DROP INDEX workload_runs_waiting;
CREATE INDEX workload_runs_env_deadline ON workload_runs (org_id, env_id, deadline_at) WHERE state IN ('requested', 'accepted');
