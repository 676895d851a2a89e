// Invitations into an organization: live 14 days; only the hash of the token is stored and the token
// exists only in the link.
import type { Role } from "../../db/schema";
import type { Tx } from "../../db/transaction";
import { hashToken, newTokenValue } from "../tokens/secret";

export const INVITATION_DAYS = 14;

export async function createInvitation(tx: Tx, orgId: string, invite: { email: string; role: Role; invitedBy: string | null }) {
  const token = newTokenValue("invitation");
  const { rows } = await tx.sql.query<{ id: string; expires_at: Date }>(
    `INSERT INTO invitations (org_id, email, role, token_hash, invited_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, now() + make_interval(days => $6)) RETURNING id, expires_at`,
    [orgId, invite.email.toLowerCase(), invite.role, await hashToken(token), invite.invitedBy, INVITATION_DAYS],
  );
  return { id: rows[0]!.id, token, expiresAt: rows[0]!.expires_at };
}

/**
 * A new token for an invitation nobody accepted or revoked, live another 14 days. Replacing the hash
 * is what makes the old link stop working. Null when the invitation is not open (or not visible).
 */
export async function reissueInvitation(tx: Tx, invitationId: string) {
  const token = newTokenValue("invitation");
  const { rows } = await tx.sql.query<{ expires_at: Date }>(
    `UPDATE invitations SET token_hash = $2, expires_at = now() + make_interval(days => $3)
     WHERE id = $1 AND accepted_at IS NULL AND revoked_at IS NULL RETURNING expires_at`,
    [invitationId, await hashToken(token), INVITATION_DAYS],
  );
  return rows[0] ? { token, expiresAt: rows[0].expires_at } : null;
}
