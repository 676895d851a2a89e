// Repository claims in SQL. Row-level security decides whose claims a query sees: the organization a
// transaction acts as, plus, with the `claim_repository` lookup, every claim on that one repository.
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { repositoryClaims } from "../../db/schema/repository-claims";
import { tokens } from "../../db/schema/tokens";
import type { Tx } from "../../db/transaction";
import { actAs } from "../../db/acting";
import { appendAudit } from "../audit";
import { repositoryKey } from "../http/repository-name";

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

/** A claim as the builder reads it: the code host's ids as text, as they are handed around. */
const COLUMNS = {
  id: repositoryClaims.id,
  orgId: repositoryClaims.orgId,
  repository: repositoryClaims.repository,
  repositoryId: sql<string | null>`${repositoryClaims.repositoryId}::text`,
  ownerId: sql<string | null>`${repositoryClaims.ownerId}::text`,
  proof: repositoryClaims.proof,
  createdAt: repositoryClaims.createdAt,
  lastUsedAt: repositoryClaims.lastUsedAt,
  revokedAt: repositoryClaims.revokedAt,
};

export type ClaimRef = { id: string } | { repository: string };

/** By id, or by repository: the live claim first, else the latest revoked one. */
export async function findClaim(tx: Tx, ref: ClaimRef): Promise<Claim | null> {
  const [row] =
    "id" in ref
      ? await tx.select(COLUMNS).from(repositoryClaims).where(eq(repositoryClaims.id, ref.id))
      : await tx
          .select(COLUMNS)
          .from(repositoryClaims)
          .where(eq(repositoryClaims.repositoryKey, repositoryKey(ref.repository)))
          .orderBy(sql`${repositoryClaims.revokedAt} IS NULL DESC`, desc(repositoryClaims.revokedAt))
          .limit(1);
  return row ?? null;
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
  const [row] = await tx
    .insert(repositoryClaims)
    .values({
      orgId: claim.orgId,
      repository: claim.repository,
      source: claim.source,
      proof: claim.proof,
      installationId: claim.installationId ?? null,
      repositoryId: sql`${claim.repositoryId}::bigint`,
      ownerId: sql`${claim.ownerId}::bigint`,
    })
    .onConflictDoNothing({ target: repositoryClaims.repositoryKey, where: sql`revoked_at IS NULL` })
    .returning(COLUMNS);
  return row ?? null;
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
    const [proven] = await tx
      .update(repositoryClaims)
      .set({
        proof: claim.proof,
        repositoryId: sql`${claim.repositoryId}::bigint`,
        ownerId: sql`${claim.ownerId}::bigint`,
        installationId: sql`COALESCE(${claim.installationId ?? null}, ${repositoryClaims.installationId})`,
      })
      .where(eq(repositoryClaims.id, live.id))
      .returning(COLUMNS);
    await audit(claim.orgId, "repository_claim.proven", live.id, { repository: live.repository, proof: claim.proof });
    return { claim: proven!, created: false };
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
  const rows = await tx
    .update(repositoryClaims)
    .set({ unprovenAuditedAt: sql`now()` })
    .where(
      and(eq(repositoryClaims.orgId, orgId), isNull(repositoryClaims.proof), isNull(repositoryClaims.revokedAt), isNull(repositoryClaims.unprovenAuditedAt)),
    )
    .returning({ id: repositoryClaims.id, repository: repositoryClaims.repository });
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
  return tx.select(COLUMNS).from(repositoryClaims).where(eq(repositoryClaims.orgId, orgId)).orderBy(desc(repositoryClaims.createdAt), repositoryClaims.id);
}

/**
 * Revokes a live claim and kills every live token minted through it; the number killed, or null when
 * the claim was already revoked.
 */
export async function revokeClaim(tx: Tx, id: string): Promise<number | null> {
  const revoked = await tx
    .update(repositoryClaims)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(repositoryClaims.id, id), isNull(repositoryClaims.revokedAt)));
  if (revoked.rowCount === 0) return null;
  const killed = await tx
    .update(tokens)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(tokens.bindingId, id), isNull(tokens.revokedAt), sql`(${tokens.expiresAt} IS NULL OR ${tokens.expiresAt} > now())`));
  return killed.rowCount ?? 0;
}

/**
 * Records a use of a live claim, pinning the repository's and owner's ids if this is the first; returns
 * the pinned ids, or null when the claim is revoked.
 */
export async function useClaim(tx: Tx, id: string, ids: { repositoryId: string; ownerId: string }) {
  const [row] = await tx
    .update(repositoryClaims)
    .set({
      lastUsedAt: sql`now()`,
      repositoryId: sql`COALESCE(${repositoryClaims.repositoryId}, ${ids.repositoryId}::bigint)`,
      ownerId: sql`COALESCE(${repositoryClaims.ownerId}, ${ids.ownerId}::bigint)`,
    })
    .where(and(eq(repositoryClaims.id, id), isNull(repositoryClaims.revokedAt)))
    .returning({ repositoryId: sql<string>`${repositoryClaims.repositoryId}::text`, ownerId: sql<string>`${repositoryClaims.ownerId}::text` });
  return row ?? null;
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
