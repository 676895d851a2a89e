-- A repository claim needs proof that the claiming organization controls the repository: an App
-- installation of that organization on the repository's owner (by numeric account id), or a workflow
-- of the repository itself exchanging an identity token minted for a one-time audience.

-- How the claim was proven; NULL: made with the CLI before proof was required ("unproven"). An
-- unproven claim mints nothing until its organization proves it, and gives way to an organization
-- that proves control. `unproven_audited_at`: when the audit log was told it is unproven (once).
ALTER TABLE repository_claims
  ADD COLUMN proof text CHECK (proof IN ('installation', 'repository')),
  ADD COLUMN unproven_audited_at timestamptz;
UPDATE repository_claims SET proof = 'installation' WHERE source = 'installation';
-- A CLI claim already used by the repository's workflows (ids pinned) whose organization holds a live
-- installation on that very owner account has the proof an installation gives.
UPDATE repository_claims c SET proof = 'installation'
WHERE c.source = 'cli' AND c.owner_id IS NOT NULL AND EXISTS (
  SELECT 1 FROM installations i
  WHERE i.org_id = c.org_id AND i.account_id = c.owner_id AND i.deleted_at IS NULL AND i.suspended_at IS NULL);

-- A claim waiting for proof from the repository: only the hash of its one-time audience is kept. It
-- grants nothing and blocks nobody; each organization holds at most one per repository (claiming
-- again replaces the audience).
CREATE TABLE repository_claim_proofs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  repository text NOT NULL CHECK (repository ~ '^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$'),
  repository_key text GENERATED ALWAYS AS (lower(repository)) STORED,
  audience_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  UNIQUE (org_id, repository_key)
);
SELECT svc_protect_tenant_table('repository_claim_proofs');
-- The exchange learns the organization from the audience it was shown, so it finds the row by its hash.
CREATE POLICY by_audience ON repository_claim_proofs FOR SELECT USING (audience_hash = app_lookup('claim_proof'));

-- A commit credential names the claim it came through: it reports only while that claim is live.
ALTER TABLE pr_credentials ADD COLUMN binding_id uuid REFERENCES repository_claims (id) ON DELETE CASCADE;
