// Ending a membership takes everything that rested on it in the same transaction: the person's
// sessions (spec: Authentication rule 5) and the CLI tokens they hold in that organization.
import type { Tx } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import { revokeGrantsOf } from "../mcp/grants";
import { signOutEverywhere } from "../sessions/store";

/** Deletes the membership and revokes the person's CLI tokens in the organization the transaction acts as. */
export async function endMembership(tx: Tx, orgId: string, personId: string): Promise<{ removed: boolean; tokensRevoked: number }> {
  const removed = await tx.sql.query("DELETE FROM memberships WHERE org_id = $1 AND person_id = $2", [orgId, personId]);
  const revoked = await tx.sql.query("UPDATE tokens SET revoked_at = now() WHERE org_id = $1 AND person_id = $2 AND kind = 'cli' AND revoked_at IS NULL", [
    orgId,
    personId,
  ]);
  // Model clients the person connected to this organization (worker/mcp) end with the membership too.
  await revokeGrantsOf(tx, orgId, personId);
  return { removed: (removed.rowCount ?? 0) > 0, tokensRevoked: revoked.rowCount ?? 0 };
}

export async function removeMember(tx: Tx, orgId: string, personId: string, actor: { personId: string | null; label: string }): Promise<boolean> {
  // Sessions first: the policy that lets this organization end them rests on the membership.
  const sessionsEnded = await signOutEverywhere(tx, personId);
  const { removed, tokensRevoked } = await endMembership(tx, orgId, personId);
  if (!removed) return false;
  await appendAudit(tx, {
    orgId,
    action: "member.removed",
    actorPersonId: actor.personId,
    actorLabel: actor.label,
    target: personId,
    data: { sessionsEnded, tokensRevoked },
  });
  return true;
}
