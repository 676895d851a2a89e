// Revoking a repository claim on a person's behalf (the CLI's DELETE /v1/oidc/bindings/... and the
// console's claims.revoke): every engine token minted through it dies, and the revocation is audited once.
import type { Tx } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import { findClaim, revokeClaim, type ClaimRef } from "./store";

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
