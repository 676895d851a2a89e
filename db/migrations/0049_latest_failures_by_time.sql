-- The overview lists the latest failed or errored runs by when they failed (finished_at), not by when
-- they were first recorded (seq): this index reads the few newest of an organization without sorting
-- all its failed runs. Expand only: the previous release reads nothing new.
CREATE INDEX engine_runs_failed ON engine_runs (org_id, finished_at DESC) WHERE outcome IN ('failed', 'errored');
