// Removing a member signs them out in the same transaction (spec: Authentication rule 5).
import type { Tx } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import { signOutEverywhere } from "../sessions/store";

export async function removeMember(tx: Tx, orgId: string, personId: string, actor: { personId: string | null; label: string }): Promise<boolean> {
  // Sessions first: the policy that lets this organization end them rests on the membership.
  const signedOut = await signOutEverywhere(tx, personId);
  const removed = await tx.sql.query("DELETE FROM memberships WHERE org_id = $1 AND person_id = $2", [orgId, personId]);
  if (removed.rowCount === 0) return false;
  await appendAudit(tx, { orgId, action: "member.removed", actorPersonId: actor.personId, actorLabel: actor.label, target: personId, data: { sessionsEnded: signedOut } });
  return true;
}
