// Accepting: the invited person joins with the invitation's role, and the invitation is used up.
import type { Role } from "../../db/schema";
import { inTransaction, type Connection, type Tx } from "../../db/transaction";
import { appendAudit } from "../audit/append";

export interface OpenInvitation {
  id: string;
  org_id: string;
  role: Role;
}

/**
 * Uses up one invitation for the person, in a transaction acting as its organization: they join with
 * its role (someone already a member keeps the role they have). False when it was no longer live,
 * e.g. a concurrent acceptance took it first.
 */
export async function useInvitation(tx: Tx, invitation: OpenInvitation, person: { id: string; label: string }): Promise<boolean> {
  const used = await tx.sql.query(
    "UPDATE invitations SET accepted_at = now(), accepted_by = $2 WHERE id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()",
    [invitation.id, person.id],
  );
  if (used.rowCount === 0) return false;
  await tx.sql.query(
    "INSERT INTO memberships (org_id, person_id, role, role_source) VALUES ($1, $2, $3, 'invitation') ON CONFLICT (org_id, person_id) DO NOTHING",
    [invitation.org_id, person.id, invitation.role],
  );
  await appendAudit(tx, {
    orgId: invitation.org_id,
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
  const invitations = await inTransaction(
    connect,
    { lookups: { invited_email: email } },
    async (tx) => (await tx.sql.query<OpenInvitation>("SELECT id, org_id, role FROM invitations WHERE email = $1", [email])).rows,
  );
  for (const invitation of invitations) {
    await inTransaction(connect, { orgId: invitation.org_id, lookups: { person_id: person.id } }, (tx) => useInvitation(tx, invitation, person));
  }
  return invitations.map((invitation) => invitation.org_id);
}
