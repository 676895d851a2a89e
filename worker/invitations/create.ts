// Invitations into an organization: live 14 days; only the hash of the token is stored and the token
// exists only in the link.
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Role } from "../../db/schema";
import { invitations } from "../../db/schema/signin";
import type { Tx } from "../../db/transaction";
import { newTokenValue } from "../tokens";
import { hashToken } from "../http/hash";

export const INVITATION_DAYS = 14;

const inInvitationDays = sql`now() + make_interval(days => ${INVITATION_DAYS})`;

export async function createInvitation(tx: Tx, orgId: string, invite: { email: string; role: Role; invitedBy: string | null }) {
  const token = newTokenValue("invitation");
  const [row] = await tx
    .insert(invitations)
    .values({
      orgId,
      email: invite.email.toLowerCase(),
      role: invite.role,
      tokenHash: await hashToken(token),
      invitedBy: invite.invitedBy,
      expiresAt: inInvitationDays,
    })
    .returning({ id: invitations.id, expiresAt: invitations.expiresAt });
  return { id: row!.id, token, expiresAt: row!.expiresAt };
}

/**
 * A new token for an invitation nobody accepted or revoked, live another 14 days. Replacing the hash
 * is what makes the old link stop working. Null when the invitation is not open (or not visible).
 */
export async function reissueInvitation(tx: Tx, invitationId: string) {
  const token = newTokenValue("invitation");
  const [row] = await tx
    .update(invitations)
    .set({ tokenHash: await hashToken(token), expiresAt: inInvitationDays })
    .where(and(eq(invitations.id, invitationId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)))
    .returning({ expiresAt: invitations.expiresAt });
  return row ? { token, expiresAt: row.expiresAt } : null;
}
