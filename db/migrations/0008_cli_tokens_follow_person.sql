-- A CLI token acts for one person: it is only as strong as that person's current role, it dies when
-- they leave the organization or close their account, and it expires (renewed by signing in again).
ALTER TABLE tokens ADD COLUMN person_id uuid REFERENCES people (id);

-- A CLI token made before this knew its person only as its creator.
UPDATE tokens SET person_id = created_by WHERE kind = 'cli';
-- One that names nobody cannot follow anyone's role: it ends here.
UPDATE tokens SET revoked_at = now() WHERE kind = 'cli' AND person_id IS NULL AND revoked_at IS NULL;
-- The lifetime device sign-in now gives (worker/tokens/lifetime.ts), counted from creation.
UPDATE tokens SET expires_at = created_at + interval '30 days' WHERE kind = 'cli' AND expires_at IS NULL;

ALTER TABLE tokens ADD CONSTRAINT cli_tokens_have_a_person
  CHECK (kind <> 'cli' OR person_id IS NOT NULL OR revoked_at IS NOT NULL);
ALTER TABLE tokens ADD CONSTRAINT engine_tokens_have_no_person CHECK (kind <> 'engine' OR person_id IS NULL);
CREATE INDEX tokens_person ON tokens (person_id) WHERE person_id IS NOT NULL;
