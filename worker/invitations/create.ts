// Invitations into an organization: live 14 days; only the hash of the token is stored and the token
// exists only in the link. The console procedures arrive later; magic-link sign-in relies on them now.
import type { Role } from "../../db/schema";
import type { Tx } from "../../db/transaction";
import { hashToken, newTokenValue } from "../tokens/secret";

export const INVITATION_DAYS = 14;

export async function createInvitation(tx: Tx, orgId: string, invite: { email: string; role: Role; invitedBy: string | null }) {
  const token = newTokenValue("invitation");
  const { rows } = await tx.sql.query<{ id: string }>(
    `INSERT INTO invitations (org_id, email, role, token_hash, invited_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, now() + make_interval(days => $6)) RETURNING id`,
    [orgId, invite.email.toLowerCase(), invite.role, await hashToken(token), invite.invitedBy, INVITATION_DAYS],
  );
  return { id: rows[0]!.id, token };
}
