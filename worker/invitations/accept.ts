// Accepting: the invited person joins with the invitation's role, and the invitation is used up.
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { Role } from "../../db/schema";
import { memberships } from "../../db/schema/organizations";
import { invitations } from "../../db/schema/signin";
import { inTransaction, type Connection, type Tx } from "../../db/transaction";
import { appendAudit } from "../audit";

export interface OpenInvitation {
  id: string;
  orgId: string;
  role: Role;
}

/**
 * Uses up one invitation for the person, in a transaction acting as its organization: they join with
 * its role (someone already a member keeps the role they have). False when it was no longer live,
 * e.g. a concurrent acceptance took it first.
 */
export async function useInvitation(tx: Tx, invitation: OpenInvitation, person: { id: string; label: string }): Promise<boolean> {
  const used = await tx
    .update(invitations)
    .set({ acceptedAt: sql`now()`, acceptedBy: person.id })
    .where(and(eq(invitations.id, invitation.id), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, sql`now()`)));
  if (used.rowCount === 0) return false;
  await tx
    .insert(memberships)
    .values({ orgId: invitation.orgId, personId: person.id, role: invitation.role, roleSource: "invitation" })
    .onConflictDoNothing({ target: [memberships.orgId, memberships.personId] });
  await appendAudit(tx, {
    orgId: invitation.orgId,
    action: "invitation.accepted",
    actorPersonId: person.id,
    actorLabel: person.label,
    target: invitation.id,
    data: { role: invitation.role },
  });
  return true;
}

/** Accepts every live invitation of `email` for the person; returns the organizations joined. */
export async function acceptInvitationsFor(connect: () => Promise<Connection>, person: { id: string; label: string }, email: string): Promise<string[]> {
  const open: OpenInvitation[] = await inTransaction(connect, { lookups: { invited_email: email } }, (tx) =>
    tx.select({ id: invitations.id, orgId: invitations.orgId, role: invitations.role }).from(invitations).where(eq(invitations.email, email)),
  );
  for (const invitation of open) {
    await inTransaction(connect, { orgId: invitation.orgId, lookups: { person_id: person.id } }, (tx) => useInvitation(tx, invitation, person));
  }
  return open.map((invitation) => invitation.orgId);
}
