-- The claim looks for the oldest held run whose lease lapsed (svc_claim_run, 0039) in the claim's order,
-- requested_at then id. Only workload_runs_env_requested, every run of the environment, gave that order,
-- so a planner that would rather not sort (on statistics that know nothing of the runs: a table not
-- analyzed yet) walked it past every waiting run, on every claim (bench/README.md, "What a backlog
-- costs a claim"). The held runs alone in that order: walked instead, the look-up reads the held runs
-- at most, never the backlog. workload_runs_leases stays: with statistics, the lapsed ones are read
-- by their lease's end and sorted, a handful.
CREATE INDEX workload_runs_held ON workload_runs (org_id, env_id, requested_at, id) WHERE state = 'accepted';
