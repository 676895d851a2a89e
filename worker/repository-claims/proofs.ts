// Pending claims: proof from the repository itself. Claiming without an installation of the
// organization on the repository's owner hands out a one-time audience; a workflow of exactly that
// repository exchanging an identity token minted for it (POST /v1/auth/codehost-oidc) makes the claim
// active. Only the audience's hash is stored; a pending claim grants nothing and blocks nobody.
import { decodeJwt } from "jose";
import type { Tx } from "../../db/transaction";
import { base64url, hashToken } from "../tokens/secret";

/** How long a one-time audience can complete its claim. */
export const CLAIM_PROOF_LIFETIME_HOURS = 24;
const PROOF_PATH = "/v1/oidc/bindings/proof/";

export interface PendingProof {
  id: string;
  orgId: string;
  repository: string;
  repositoryKey: string;
  live: boolean;
}

/**
 * A fresh one-time audience for this organization's claim on `repository`, replacing any it was shown
 * before (only the latest one completes the claim); in a transaction acting as `orgId`.
 */
export async function requestClaimProof(tx: Tx, orgId: string, repository: string, baseAudience: string): Promise<{ audience: string; expiresAt: Date }> {
  const audience = baseAudience + PROOF_PATH + base64url(crypto.getRandomValues(new Uint8Array(24)));
  const { rows } = await tx.sql.query<{ expiresAt: Date }>(
    `INSERT INTO repository_claim_proofs (org_id, repository, audience_hash, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(hours => $4))
     ON CONFLICT (org_id, repository_key) DO UPDATE
       SET repository = EXCLUDED.repository, audience_hash = EXCLUDED.audience_hash, created_at = now(), expires_at = EXCLUDED.expires_at
     RETURNING expires_at AS "expiresAt"`,
    [orgId, repository, await hashToken(audience), CLAIM_PROOF_LIFETIME_HOURS],
  );
  return { audience, expiresAt: rows[0]!.expiresAt };
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
  const { rows } = await tx.sql.query<PendingProof>(
    `SELECT id, org_id AS "orgId", repository, repository_key AS "repositoryKey", expires_at > now() AS live
     FROM repository_claim_proofs WHERE audience_hash = $1`,
    [audienceHash],
  );
  return rows[0] ?? null;
}

/** Spent: the audience completes one claim once. In a transaction acting as the proof's organization. */
export async function spendClaimProof(tx: Tx, id: string): Promise<void> {
  await tx.sql.query("DELETE FROM repository_claim_proofs WHERE id = $1", [id]);
}
