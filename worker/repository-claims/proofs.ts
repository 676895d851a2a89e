// Pending claims: proof from the repository itself. Claiming without an installation of the
// organization on the repository's owner hands out a one-time audience; a workflow of exactly that
// repository exchanging an identity token minted for it (POST /v1/auth/codehost-oidc) makes the claim
// active. Only the audience's hash is stored; a pending claim grants nothing and blocks nobody.
import { eq, sql } from "drizzle-orm";
import { decodeJwt } from "jose";
import { repositoryClaimProofs } from "../../db/schema/repository-claims";
import type { Tx } from "../../db/transaction";
import { base64url, hashToken } from "../http/hash";

/** How long a one-time audience can complete its claim. */
export const CLAIM_PROOF_LIFETIME_HOURS = 24;
const PROOF_PATH = "/v1/oidc/bindings/proof/";

export interface PendingProof {
  id: string;
  orgId: string;
  repository: string;
  /** lower(repository), generated: never null, though the column's type allows it. */
  repositoryKey: string | null;
  live: boolean;
}

/**
 * A fresh one-time audience for this organization's claim on `repository`, replacing any it was shown
 * before (only the latest one completes the claim); in a transaction acting as `orgId`.
 */
export async function requestClaimProof(tx: Tx, orgId: string, repository: string, baseAudience: string): Promise<{ audience: string; expiresAt: Date }> {
  const audience = baseAudience + PROOF_PATH + base64url(crypto.getRandomValues(new Uint8Array(24)));
  const [row] = await tx
    .insert(repositoryClaimProofs)
    .values({
      orgId,
      repository,
      audienceHash: await hashToken(audience),
      expiresAt: sql`now() + make_interval(hours => ${CLAIM_PROOF_LIFETIME_HOURS})`,
    })
    .onConflictDoUpdate({
      target: [repositoryClaimProofs.orgId, repositoryClaimProofs.repositoryKey],
      set: { repository: sql`EXCLUDED.repository`, audienceHash: sql`EXCLUDED.audience_hash`, createdAt: sql`now()`, expiresAt: sql`EXCLUDED.expires_at` },
    })
    .returning({ expiresAt: repositoryClaimProofs.expiresAt });
  return { audience, expiresAt: row!.expiresAt };
}

/** The token's audience when it is one of this service's one-time claim audiences (read unverified: it only picks what to verify against). */
export function claimProofAudience(token: string, baseAudience: string): string | null {
  try {
    const { aud } = decodeJwt(token);
    return typeof aud === "string" && aud.startsWith(baseAudience + PROOF_PATH) ? aud : null;
  } catch {
    return null;
  }
}

/** The lookup that shows the pending claim behind `audience` before its organization is known. */
export const claimProofLookup = async (audience: string) => ({ claim_proof: await hashToken(audience) });

/** The pending claim behind the transaction's `claim_proof` lookup; `live`: not expired. */
export async function findClaimProof(tx: Tx, audienceHash: string): Promise<PendingProof | null> {
  const [row] = await tx
    .select({
      id: repositoryClaimProofs.id,
      orgId: repositoryClaimProofs.orgId,
      repository: repositoryClaimProofs.repository,
      repositoryKey: repositoryClaimProofs.repositoryKey,
      live: sql<boolean>`${repositoryClaimProofs.expiresAt} > now()`,
    })
    .from(repositoryClaimProofs)
    .where(eq(repositoryClaimProofs.audienceHash, audienceHash));
  return row ?? null;
}

/** Spent: the audience completes one claim once. In a transaction acting as the proof's organization. */
export async function spendClaimProof(tx: Tx, id: string): Promise<void> {
  await tx.delete(repositoryClaimProofs).where(eq(repositoryClaimProofs.id, id));
}
