// Ending a membership takes everything that rested on it in the same transaction: the person's
// sessions (spec: Authentication rule 5) and the CLI tokens they hold in that organization.
import { and, eq, isNull, sql } from "drizzle-orm";
import { memberships } from "../../db/schema/organizations";
import { tokens } from "../../db/schema/tokens";
import type { Tx } from "../../db/transaction";
import { appendAudit } from "../audit";
import { revokeGrantsOf } from "../mcp";
import { signOutEverywhere } from "../sessions";

/** Deletes the membership and revokes the person's CLI tokens in the organization the transaction acts as. */
export async function endMembership(tx: Tx, orgId: string, personId: string): Promise<{ removed: boolean; tokensRevoked: number }> {
  const removed = await tx.delete(memberships).where(and(eq(memberships.orgId, orgId), eq(memberships.personId, personId)));
  const revoked = await tx
    .update(tokens)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(tokens.orgId, orgId), eq(tokens.personId, personId), eq(tokens.kind, "cli"), isNull(tokens.revokedAt)));
  // Model clients the person connected to this organization (worker/mcp) end with the membership too.
  await revokeGrantsOf(tx, orgId, personId);
  return { removed: (removed.rowCount ?? 0) > 0, tokensRevoked: revoked.rowCount ?? 0 };
}

/**
 * Removes the member, signed out everywhere: the other organizations they belong to, whose live
 * channels may hold their now signed-out sockets; null when they were no member.
 */
export async function removeMember(tx: Tx, orgId: string, personId: string, actor: { personId: string | null; label: string }): Promise<string[] | null> {
  // Sessions first: the policy that lets this organization end them rests on the membership.
  const { ended: sessionsEnded, organizations } = await signOutEverywhere(tx, personId);
  const { removed, tokensRevoked } = await endMembership(tx, orgId, personId);
  if (!removed) return null;
  await appendAudit(tx, {
    orgId,
    action: "member.removed",
    actorPersonId: actor.personId,
    actorLabel: actor.label,
    target: personId,
    data: { sessionsEnded, tokensRevoked },
  });
  return organizations.filter((other) => other !== orgId);
}
