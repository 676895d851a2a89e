// invitations.list, .create, .resend, .revoke (members.manage) and invitations.accept (the signed-in
// person the invitation is for: their e-mail address is the invited one; spec: Invitation,
// Organization and membership facts). The token exists only in the link,
// which is answered once by create and once by each resend; nothing ever answers its hash.
import * as z from "zod";
import { Refusal } from "../http/refusal";
import { text } from "../http/text";
import { ROLES, type Role } from "../../db/enums";
import { actAs, addLookup, type Tx } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import { useInvitation, type OpenInvitation } from "./accept";
import { createInvitation, reissueInvitation } from "./create";
import { mailInvitation } from "./mail";
import { onlyOwnerTouchesOwners } from "../members/role-rules";
import { hashToken } from "../tokens/secret";
import { inOrganization, router, signedIn, type OrgContext } from "../rpc/trpc";

interface InvitationRow {
  id: string;
  email: string;
  role: Role;
  invited_by: string | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
  expired: boolean;
}

// Expiry is decided on the database clock, like every other lifetime.
const SELECT_INVITATIONS = `
SELECT i.id, i.email, i.role, p.login AS invited_by, i.created_at, i.expires_at, i.accepted_at, i.revoked_at, i.expires_at <= now() AS expired
FROM invitations i LEFT JOIN people p ON p.id = i.invited_by`;

const stateOf = (row: InvitationRow) => (row.accepted_at ? "accepted" : row.revoked_at ? "revoked" : row.expired ? "expired" : "pending");

const iso = (date: Date | null) => date?.toISOString() ?? null;

const view = (row: InvitationRow) => ({
  id: row.id,
  email: row.email,
  role: row.role,
  state: stateOf(row),
  /** The inviter's login while they are still a member. */
  invitedBy: row.invited_by,
  createdAt: row.created_at.toISOString(),
  expiresAt: row.expires_at.toISOString(),
  acceptedAt: iso(row.accepted_at),
  revokedAt: iso(row.revoked_at),
});

/** What `deliver` needs, read in the transaction that made or reissued the invitation. */
async function toDeliver(tx: Tx, orgId: string, invitationId: string, token: string) {
  const { rows } = await tx.sql.query<{ name: string }>("SELECT name FROM organizations WHERE id = $1", [orgId]);
  return { invitation: view(await invitationFor(tx, orgId, invitationId)), token, organization: rows[0]!.name };
}

/**
 * The answer to create and resend: the invitation and its link (shown once), committed first and then,
 * when mail is configured, mailed to the address (`mailed` says whether the provider took it).
 */
async function deliver(ctx: OrgContext, { invitation, token, organization }: Awaited<ReturnType<typeof toDeliver>>) {
  const link = `${ctx.origin}/invitations/accept?token=${encodeURIComponent(token)}`;
  // Mail only what is committed: a link must never reach an inbox for an invitation that was rolled back.
  const mailed = await mailInvitation(ctx.config, { email: invitation.email, organization, link });
  return { invitation, link, mailed };
}

function mayGrant(ctx: OrgContext, role: Role) {
  onlyOwnerTouchesOwners(ctx.org.role, [role], "invite someone as an owner");
}

/** One invitation of the organization, locked for the change about to be made; another organization's is missing. */
async function invitationFor(tx: Tx, orgId: string, invitationId: string): Promise<InvitationRow> {
  const { rows } = await tx.sql.query<InvitationRow>(`${SELECT_INVITATIONS} WHERE i.org_id = $1 AND i.id = $2 FOR UPDATE OF i`, [orgId, invitationId]);
  if (!rows[0]) throw new Refusal("not_found", "No such invitation in this organization.");
  return rows[0];
}

const InvitationInput = z.object({ invitationId: z.uuid() });

const list = inOrganization
  .meta({ permission: "members.manage", gate: "gated", summary: "Invitations, newest first, with their state (pending, expired, accepted, revoked)" })
  .input(z.object({ limit: z.int().min(1).max(200).default(100) }))
  .query(({ ctx, input }) =>
    ctx.transaction(async (tx) =>
      (
        await tx.sql.query<InvitationRow>(`${SELECT_INVITATIONS} WHERE i.org_id = $1 ORDER BY i.created_at DESC, i.id LIMIT $2`, [ctx.org.id, input.limit])
      ).rows.map(view),
    ),
  );

const create = inOrganization
  .meta({ permission: "members.manage", gate: "gated", summary: "Invite an address; answers the link, once (only owners invite owners)" })
  .input(z.object({ email: z.email().max(254).toLowerCase(), role: z.enum(ROLES) }))
  .mutation(async ({ ctx, input }) =>
    deliver(
      ctx,
      await ctx.transaction(async (tx) => {
        mayGrant(ctx, input.role);
        const { actor } = ctx;
        // Serializes invitations of the organization, so the checks below hold until the insert.
        await tx.sql.query("SELECT 1 FROM organizations WHERE id = $1 FOR UPDATE", [ctx.org.id]);
        const member = await tx.sql.query("SELECT 1 FROM memberships m JOIN people p ON p.id = m.person_id WHERE m.org_id = $1 AND lower(p.email) = $2", [
          ctx.org.id,
          input.email,
        ]);
        if (member.rows.length) throw new Refusal("already_exists", `${input.email} is already a member of this organization.`);
        const pending = await tx.sql.query(
          "SELECT 1 FROM invitations WHERE org_id = $1 AND email = $2 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()",
          [ctx.org.id, input.email],
        );
        if (pending.rows.length) throw new Refusal("already_exists", `${input.email} already has a pending invitation; resend it for a new link.`);
        const { id, token } = await createInvitation(tx, ctx.org.id, { email: input.email, role: input.role, invitedBy: actor.actorPersonId });
        await appendAudit(tx, { orgId: ctx.org.id, ...actor, action: "invitation.created", target: id, data: { email: input.email, role: input.role } });
        return toDeliver(tx, ctx.org.id, id, token);
      }),
    ),
  );

const resend = inOrganization
  .meta({ permission: "members.manage", gate: "gated", summary: "A new link for an open invitation, live 14 days; the old link stops working" })
  .input(InvitationInput)
  .mutation(async ({ ctx, input }) =>
    deliver(
      ctx,
      await ctx.transaction(async (tx) => {
        const { actor } = ctx;
        const invitation = await invitationFor(tx, ctx.org.id, input.invitationId);
        // A new link for an owner invitation grants what a new invitation would.
        mayGrant(ctx, invitation.role);
        const reissued = await reissueInvitation(tx, invitation.id);
        if (!reissued) throw new Refusal("state_conflict", `This invitation was already ${stateOf(invitation)}; invite the address again instead.`);
        await appendAudit(tx, {
          orgId: ctx.org.id,
          ...actor,
          action: "invitation.resent",
          target: invitation.id,
          data: { email: invitation.email, role: invitation.role },
        });
        return toDeliver(tx, ctx.org.id, invitation.id, reissued.token);
      }),
    ),
  );

const revoke = inOrganization
  .meta({ permission: "members.manage", gate: "gated", summary: "Revoke an invitation: its link stops working" })
  .input(InvitationInput)
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const { actor } = ctx;
      const invitation = await invitationFor(tx, ctx.org.id, input.invitationId);
      if (invitation.accepted_at) throw new Refusal("state_conflict", "This invitation was already accepted; remove the member instead.");
      if (invitation.revoked_at) return { revoked: true, alreadyRevoked: true };
      await tx.sql.query("UPDATE invitations SET revoked_at = now() WHERE id = $1", [invitation.id]);
      await appendAudit(tx, {
        orgId: ctx.org.id,
        ...actor,
        action: "invitation.revoked",
        target: invitation.id,
        data: { email: invitation.email, role: invitation.role },
      });
      return { revoked: true, alreadyRevoked: false };
    }),
  );

const accept = signedIn
  .meta({ permission: null, gate: "reachable", summary: "Accept an invitation by the token from its link: the signed-in account joins with its role" })
  .input(z.object({ token: text({ min: 1, max: 200 }).describe("The token from the invitation link.") }))
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const { actorPersonId, actorLabel } = await actorOf(tx, ctx.session.personId);
      const hash = await hashToken(input.token);
      // The token names its organization: a lookup by hash shows that one invitation, nothing else.
      await addLookup(tx, "invitation_hash", hash);
      const { rows } = await tx.sql.query<OpenInvitation & { email: string; accepted_at: Date | null; revoked_at: Date | null; expired: boolean }>(
        "SELECT id, org_id, email, role, accepted_at, revoked_at, expires_at <= now() AS expired FROM invitations WHERE token_hash = $1",
        [hash],
      );
      const invitation = rows[0];
      if (!invitation) throw new Refusal("not_found", "This invitation link is not valid; if it was resent, use the newest link.");
      // A link can be forwarded or leaked: it admits only the person at the invited address (before its
      // state, which is the invitee's business). A person's address is the code host's public one, which
      // it lets a person pick only among their verified addresses, or the one an e-mail sign-in link proved.
      const invitee = await tx.sql.query("SELECT 1 FROM people WHERE id = $1 AND lower(email) = $2", [actorPersonId, invitation.email]);
      if (invitee.rows.length === 0) {
        throw new Refusal(
          "forbidden",
          "This invitation is for another e-mail address than your account's. Sign in as the person it was sent to (make the invited address " +
            "your public e-mail on the code host, or use the e-mail sign-in link), or ask for an invitation to your own address.",
        );
      }
      if (invitation.accepted_at) throw new Refusal("state_conflict", "This invitation has already been used.");
      if (invitation.revoked_at) throw new Refusal("state_conflict", "This invitation was revoked; ask for a new one.");
      if (invitation.expired) throw new Refusal("state_conflict", "This invitation has expired; ask for it to be resent.");
      await actAs(tx, invitation.org_id);
      if (!(await useInvitation(tx, invitation, { id: actorPersonId, label: actorLabel }))) {
        throw new Refusal("state_conflict", "This invitation has already been used.");
      }
      const joined = await tx.sql.query<{ slug: string; name: string; role: Role }>(
        "SELECT o.slug, o.name, m.role FROM organizations o JOIN memberships m ON m.org_id = o.id WHERE o.id = $1 AND m.person_id = $2",
        [invitation.org_id, actorPersonId],
      );
      const { slug, name, role } = joined.rows[0]!;
      return { organization: { id: invitation.org_id, slug, name }, role };
    }),
  );

export const invitationsRouter = router({ list, create, resend, revoke, accept });

// Who acted, as the audit log records it, for procedures that act on no organization (those that
// do get it from `authorize`, as ctx.actor).
export async function actorOf(tx: Tx, personId: string): Promise<{ actorPersonId: string; actorLabel: string }> {
  const { rows } = await tx.sql.query<{ login: string | null; email: string | null }>("SELECT login, email FROM people WHERE id = $1", [personId]);
  return { actorPersonId: personId, actorLabel: rows[0]?.login ?? rows[0]?.email ?? personId };
}
