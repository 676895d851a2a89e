-- Operators (the people who run the service; not customers), their portal sessions, and the
-- own-failure store. None of these tables belongs to an organization, and the application role holds
-- no privilege on any of them: the operator role (SVC_ADMIN_DATABASE_URL) keeps operators and their
-- sessions; the application role only records a failure, through svc_record_failure below.

-- An operator signs in to /admin with a login and a password. Only a slow salted hash is stored
-- (PBKDF2-SHA-256, `pbkdf2-sha256$<iterations>$<salt>$<hash>`, worker/operators/password.ts).
CREATE TABLE operators (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  login text NOT NULL CHECK (login ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'),
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  password_changed_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX operators_login ON operators (lower(login));

-- A portal session: its own cookie (svc_operator_session), only the hash of its value stored.
CREATE TABLE operator_sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  operator_id uuid NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  client_address text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  signed_out_at timestamptz
);
CREATE INDEX operator_sessions_operator ON operator_sessions (operator_id);

GRANT SELECT, INSERT, UPDATE, DELETE ON operators, operator_sessions TO svc_operator;

-- The own-failure store: every unexpected failure (500), grouped by a fingerprint of its catalog
-- code, route, error type and our own top frames, with a redacted sample (no payload, token or cookie).
CREATE TABLE failure_groups (
  fingerprint text PRIMARY KEY CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
  code text NOT NULL,
  route text NOT NULL,
  error_type text NOT NULL,
  sample jsonb NOT NULL,
  occurrences bigint NOT NULL CHECK (occurrences >= 1),
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  last_written_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX failure_groups_last_seen ON failure_groups (last_seen_at);

GRANT SELECT ON failure_groups TO svc_operator;
-- The maintenance pass (Cron Trigger) deletes groups past SVC_FAILURE_RETENTION_DAYS.
GRANT SELECT, DELETE ON failure_groups TO svc_maintenance;

-- The one way a failure is recorded, bounded here whatever the callers do: at most 500 groups, and
-- at most one write per group per 10 seconds (a write inside the interval changes nothing and
-- answers 'throttled'; the Worker keeps those occurrences and adds them to its next write).
-- Answers 'inserted', 'updated', 'throttled' or 'full'.
CREATE FUNCTION svc_record_failure(p_fingerprint text, p_code text, p_route text, p_error_type text, p_sample jsonb, p_occurrences integer)
  RETURNS text LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  changed integer;
BEGIN
  IF p_occurrences IS NULL OR p_occurrences < 1 OR p_occurrences > 1000000 THEN
    RAISE EXCEPTION 'occurrences out of range' USING ERRCODE = '22023';
  END IF;
  UPDATE failure_groups
     SET occurrences = occurrences + p_occurrences, last_seen_at = now(), last_written_at = now(), sample = p_sample
   WHERE fingerprint = p_fingerprint AND last_written_at <= now() - interval '10 seconds';
  GET DIAGNOSTICS changed = ROW_COUNT;
  IF changed > 0 THEN RETURN 'updated'; END IF;
  IF EXISTS (SELECT 1 FROM failure_groups WHERE fingerprint = p_fingerprint) THEN RETURN 'throttled'; END IF;
  -- New groups are counted one at a time, so concurrent failures never take the store past the cap.
  PERFORM pg_advisory_xact_lock(hashtextextended('svc_record_failure', 0));
  IF (SELECT count(*) FROM failure_groups) >= 500 THEN RETURN 'full'; END IF;
  INSERT INTO failure_groups (fingerprint, code, route, error_type, sample, occurrences)
  VALUES (p_fingerprint, left(p_code, 100), left(p_route, 300), left(p_error_type, 300), p_sample, p_occurrences)
  ON CONFLICT (fingerprint) DO NOTHING;
  GET DIAGNOSTICS changed = ROW_COUNT;
  RETURN CASE WHEN changed > 0 THEN 'inserted' ELSE 'throttled' END;
END $$;
REVOKE EXECUTE ON FUNCTION svc_record_failure(text, text, text, text, jsonb, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION svc_record_failure(text, text, text, text, jsonb, integer) TO svc_app;
