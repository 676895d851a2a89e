-- The website assistant's daily limits (40 requests, 180,000 tokens per owner per UTC day): one row
-- per person and day, counted and reserved before the model call, settled after it. The limit is
-- the person's, whichever of their organizations they ask from, so the row belongs to no
-- organization: like a session, a person sees (and changes) only their own, by the person lookup
-- their session sets; the operator reads every row.
CREATE TABLE assistant_usage (
  person_id uuid NOT NULL REFERENCES people(id) ON DELETE CASCADE,
  day date NOT NULL,
  requests integer NOT NULL DEFAULT 0 CHECK (requests >= 0),
  used_tokens bigint NOT NULL DEFAULT 0 CHECK (used_tokens >= 0),
  reserved_tokens bigint NOT NULL DEFAULT 0 CHECK (reserved_tokens >= 0),
  PRIMARY KEY (person_id, day)
);
ALTER TABLE assistant_usage ENABLE ROW LEVEL SECURITY;
ALTER TABLE assistant_usage FORCE ROW LEVEL SECURITY;
CREATE POLICY own ON assistant_usage USING (person_id = app_lookup('person_id')::uuid) WITH CHECK (person_id = app_lookup('person_id')::uuid);
CREATE POLICY operator_read ON assistant_usage FOR SELECT TO svc_operator USING (true);
GRANT SELECT, INSERT, UPDATE ON assistant_usage TO svc_app;
GRANT SELECT ON assistant_usage TO svc_operator;
