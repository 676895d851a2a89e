// Repository claims in SQL. Row-level security decides whose claims a query sees: the organization a
// transaction acts as, plus, with the `claim_repository` lookup, every claim on that one repository.
import { actAs, type Tx } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import { repositoryKey } from "../codehost/repository";

/** How control of the repository was shown; null: a claim made before proof was required (unproven). */
export type ClaimProof = "installation" | "repository";

export interface Claim {
  id: string;
  orgId: string;
  repository: string;
  /** Pinned at first use; null until then. */
  repositoryId: string | null;
  ownerId: string | null;
  proof: ClaimProof | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const COLUMNS = `id, org_id AS "orgId", repository, repository_id::text AS "repositoryId", owner_id::text AS "ownerId",
  proof, created_at AS "createdAt", last_used_at AS "lastUsedAt", revoked_at AS "revokedAt"`;

export type ClaimRef = { id: string } | { repository: string };

/** By id, or by repository: the live claim first, else the latest revoked one. */
export async function findClaim(tx: Tx, ref: ClaimRef): Promise<Claim | null> {
  const { rows } =
    "id" in ref
      ? await tx.sql.query<Claim>(`SELECT ${COLUMNS} FROM repository_claims WHERE id = $1`, [ref.id])
      : await tx.sql.query<Claim>(
          `SELECT ${COLUMNS} FROM repository_claims WHERE repository_key = $1
         ORDER BY revoked_at IS NULL DESC, revoked_at DESC LIMIT 1`,
          [repositoryKey(ref.repository)],
        );
  return rows[0] ?? null;
}

export interface NewClaim {
  orgId: string;
  repository: string;
  source: "cli" | "installation";
  proof: ClaimProof;
  installationId?: string;
  /** The proof's ids, pinned at once. */
  repositoryId: string;
  ownerId: string;
}

/** Null when a live claim on the repository appeared meanwhile (one live claim per repository). */
export async function insertClaim(tx: Tx, claim: NewClaim): Promise<Claim | null> {
  const { rows } = await tx.sql.query<Claim>(
    `INSERT INTO repository_claims (org_id, repository, source, proof, installation_id, repository_id, owner_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (repository_key) WHERE revoked_at IS NULL DO NOTHING
     RETURNING ${COLUMNS}`,
    [claim.orgId, claim.repository, claim.source, claim.proof, claim.installationId ?? null, claim.repositoryId, claim.ownerId],
  );
  return rows[0] ?? null;
}

/** The live claim on the repository (the transaction sees every organization's with the `claim_repository` lookup). */
export async function findLiveClaim(tx: Tx, repository: string): Promise<Claim | null> {
  const found = await findClaim(tx, { repository });
  return found && !found.revokedAt ? found : null;
}

export type Established = { claim: Claim; created: boolean } | { heldElsewhere: Claim };

/**
 * Records a proven claim, in a transaction acting as `claim.orgId` with the `claim_repository` lookup.
 * A proven live claim stays as it is (this organization's is answered, another's refuses). An
 * unproven one (made before proof was required) is proven when it is this organization's, and gives
 * way otherwise: revoked, its tokens killed, audited in its organization. Every change is audited.
 */
export async function establishClaim(tx: Tx, claim: NewClaim, actor: { personId?: string; label: string }): Promise<Established> {
  const audit = (orgId: string, action: string, target: string, data: Record<string, unknown>) =>
    appendAudit(tx, { orgId, action, actorPersonId: actor.personId ?? null, actorLabel: actor.label, target, data });
  const settled = (held: Claim): Established => (held.orgId === claim.orgId ? { claim: held, created: false } : { heldElsewhere: held });
  const live = await findLiveClaim(tx, claim.repository);
  if (live?.proof) return settled(live);
  if (live?.orgId === claim.orgId) {
    const { rows } = await tx.sql.query<Claim>(
      `UPDATE repository_claims SET proof = $2, repository_id = $3, owner_id = $4, installation_id = COALESCE($5, installation_id)
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [live.id, claim.proof, claim.repositoryId, claim.ownerId, claim.installationId ?? null],
    );
    await audit(claim.orgId, "repository_claim.proven", live.id, { repository: live.repository, proof: claim.proof });
    return { claim: rows[0]!, created: false };
  }
  if (live) {
    await actAs(tx, live.orgId);
    const tokensRevoked = (await revokeClaim(tx, live.id)) ?? 0;
    await audit(live.orgId, "repository_claim.revoked", live.id, {
      repository: live.repository,
      tokensRevoked,
      reason: "unproven claim gave way to a proven one",
    });
    await actAs(tx, claim.orgId);
  }
  const created = await insertClaim(tx, claim);
  // Claimed by someone a moment ago.
  if (!created) return settled((await findLiveClaim(tx, claim.repository))!);
  await audit(claim.orgId, "repository_claim.created", created.id, { repository: created.repository, source: claim.source, proof: claim.proof });
  return { claim: created, created: true };
}

/**
 * Tells the audit log, once per claim, about this organization's live claims made before proof was
 * required: they mint nothing until proven. The UPDATE marks each row as it is reported, so two
 * readers at once report it once.
 */
export async function auditUnprovenClaims(tx: Tx, orgId: string): Promise<void> {
  const { rows } = await tx.sql.query<{ id: string; repository: string }>(
    `UPDATE repository_claims SET unproven_audited_at = now()
     WHERE org_id = $1 AND proof IS NULL AND revoked_at IS NULL AND unproven_audited_at IS NULL
     RETURNING id, repository`,
    [orgId],
  );
  for (const row of rows.sort((a, b) => a.repository.localeCompare(b.repository))) {
    await appendAudit(tx, {
      orgId,
      action: "repository_claim.unproven",
      actorLabel: "control plane",
      target: row.id,
      data: { repository: row.repository, resolution: "claim it again with POST /v1/oidc/bindings to prove control; until then it mints no tokens" },
    });
  }
}

export async function listClaims(tx: Tx, orgId: string): Promise<Claim[]> {
  const { rows } = await tx.sql.query<Claim>(`SELECT ${COLUMNS} FROM repository_claims WHERE org_id = $1 ORDER BY created_at DESC, id`, [orgId]);
  return rows;
}

/**
 * Revokes a live claim and kills every live token minted through it; the number killed, or null when
 * the claim was already revoked.
 */
export async function revokeClaim(tx: Tx, id: string): Promise<number | null> {
  const revoked = await tx.sql.query("UPDATE repository_claims SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL", [id]);
  if (revoked.rowCount === 0) return null;
  const killed = await tx.sql.query(
    `UPDATE tokens SET revoked_at = now()
     WHERE binding_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    [id],
  );
  return killed.rowCount ?? 0;
}

/**
 * Records a use of a live claim, pinning the repository's and owner's ids if this is the first; returns
 * the pinned ids, or null when the claim is revoked.
 */
export async function useClaim(tx: Tx, id: string, ids: { repositoryId: string; ownerId: string }) {
  const { rows } = await tx.sql.query<{ repositoryId: string; ownerId: string }>(
    `UPDATE repository_claims
     SET last_used_at = now(), repository_id = COALESCE(repository_id, $2::bigint), owner_id = COALESCE(owner_id, $3::bigint)
     WHERE id = $1 AND revoked_at IS NULL
     RETURNING repository_id::text AS "repositoryId", owner_id::text AS "ownerId"`,
    [id, ids.repositoryId, ids.ownerId],
  );
  return rows[0] ?? null;
}

// Revoking a repository claim on a person's behalf (the CLI's DELETE /v1/oidc/bindings/... and the
// console's claims.revoke): every engine token minted through it dies, and the revocation is audited once.
export interface ClaimRevocation {
  revoked: true;
  repository: string;
  alreadyRevoked: boolean;
  tokensRevoked: number;
}

/** In a transaction acting as `orgId`; null when the organization has no such claim. */
export async function revokeRepositoryClaim(tx: Tx, orgId: string, ref: ClaimRef, actor: { personId: string; label: string }): Promise<ClaimRevocation | null> {
  const claim = await findClaim(tx, ref);
  if (!claim) return null;
  const tokensRevoked = await revokeClaim(tx, claim.id);
  if (tokensRevoked === null) return { revoked: true, repository: claim.repository, alreadyRevoked: true, tokensRevoked: 0 };
  await appendAudit(tx, {
    orgId,
    action: "repository_claim.revoked",
    actorPersonId: actor.personId,
    actorLabel: actor.label,
    target: claim.id,
    data: { repository: claim.repository, tokensRevoked },
  });
  return { revoked: true, repository: claim.repository, alreadyRevoked: false, tokensRevoked };
}
