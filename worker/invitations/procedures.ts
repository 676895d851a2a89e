// invitations.list, .create, .resend, .revoke (members.manage) and invitations.preview, .accept (the signed-in
// person the invitation is for: their e-mail address is the invited one; spec: Invitation,
// Organization and membership facts). The token exists only in the link,
// which is answered once by create and once by each resend; nothing ever answers its hash.
import { and, desc, eq, gt, isNull, sql, type SQL } from "drizzle-orm";
import * as z from "zod";
import { memberships, organizations } from "../../db/schema/organizations";
import { people } from "../../db/schema/people";
import { invitations } from "../../db/schema/signin";
import { decodeCursor, KeyTime, KeyUuid, keyset, Paging, pageOf } from "../http/paging";
import { Refusal } from "../http/refusal";
import { text } from "../http/text";
import { ROLES, type Role } from "../../db/enums";
import type { Tx } from "../../db/transaction";
import { actAs, addLookup } from "../../db/acting";
import { appendAudit } from "../audit";
import { useInvitation } from "./accept";
import { createInvitation, reissueInvitation } from "./create";
import { mailInvitation } from "./mail";
import { onlyOwnerTouchesOwners } from "../members";
import { hashToken } from "../http/hash";
import { inOrganization, router, signedIn, type OrgContext } from "../trpc/builder";

// Expiry is decided on the database clock, like every other lifetime.
const selectInvitations = (tx: Tx, where: SQL | undefined) =>
  tx
    .select({
      id: invitations.id,
      email: invitations.email,
      role: invitations.role,
      invitedBy: people.login,
      createdAt: invitations.createdAt,
      expiresAt: invitations.expiresAt,
      acceptedAt: invitations.acceptedAt,
      revokedAt: invitations.revokedAt,
      expired: sql<boolean>`${invitations.expiresAt} <= now()`,
      /** The list's key: `created_at` to the microsecond (worker/http/paging.ts, KeyTime). */
      keyAt: sql<string>`${invitations.createdAt}::text`,
    })
    .from(invitations)
    .leftJoin(people, eq(people.id, invitations.invitedBy))
    .where(where);

type InvitationRow = Awaited<ReturnType<typeof selectInvitations>>[number];

const stateOf = (row: InvitationRow) => (row.acceptedAt ? "accepted" : row.revokedAt ? "revoked" : row.expired ? "expired" : "pending");

const iso = (date: Date | null) => date?.toISOString() ?? null;

const view = (row: InvitationRow) => ({
  id: row.id,
  email: row.email,
  role: row.role,
  state: stateOf(row),
  /** The inviter's login while they are still a member. */
  invitedBy: row.invitedBy,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt.toISOString(),
  acceptedAt: iso(row.acceptedAt),
  revokedAt: iso(row.revokedAt),
});

/** What `deliver` needs, read in the transaction that made or reissued the invitation. */
async function toDeliver(tx: Tx, orgId: string, invitationId: string, token: string) {
  const [organization] = await tx.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, orgId));
  return { invitation: view(await invitationFor(tx, orgId, invitationId)), token, organization: organization!.name };
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
  const [row] = await selectInvitations(tx, and(eq(invitations.orgId, orgId), eq(invitations.id, invitationId))).for("update", { of: invitations });
  if (!row) throw new Refusal("not_found", "No such invitation in this organization.");
  return row;
}

const InvitationInput = z.object({ invitationId: z.uuid() });

/** A page of the organization's invitations, newest first, after `after`'s key (index invitations_created). */
export const invitationsPage = (tx: Tx, orgId: string, after: readonly [string, string] | null, limit: number) =>
  selectInvitations(tx, and(eq(invitations.orgId, orgId), keyset([sql`${invitations.createdAt}`, sql`${invitations.id}`], after, "desc")))
    .orderBy(desc(invitations.createdAt), desc(invitations.id))
    .limit(limit);

const list = inOrganization
  .meta({ permission: "members.manage", gate: "gated", summary: "Invitations with their state (pending, expired, accepted, revoked), newest first (paged)" })
  .input(z.object({ ...Paging }))
  .query(({ ctx, input }) =>
    ctx.transaction(async (tx) =>
      pageOf(
        await invitationsPage(tx, ctx.org.id, decodeCursor(input.cursor, [KeyTime, KeyUuid]), input.limit + 1),
        input.limit,
        (row) => [row.keyAt, row.id],
        view,
      ),
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
        await tx.select({ one: sql`1` }).from(organizations).where(eq(organizations.id, ctx.org.id)).for("update");
        const member = await tx
          .select({ one: sql`1` })
          .from(memberships)
          .innerJoin(people, eq(people.id, memberships.personId))
          .where(and(eq(memberships.orgId, ctx.org.id), eq(sql`lower(${people.email})`, input.email)));
        if (member.length) throw new Refusal("already_exists", `${input.email} is already a member of this organization.`);
        const pending = await tx
          .select({ one: sql`1` })
          .from(invitations)
          .where(
            and(
              eq(invitations.orgId, ctx.org.id),
              eq(invitations.email, input.email),
              isNull(invitations.acceptedAt),
              isNull(invitations.revokedAt),
              gt(invitations.expiresAt, sql`now()`),
            ),
          );
        if (pending.length) throw new Refusal("already_exists", `${input.email} already has a pending invitation; resend it for a new link.`);
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
      if (invitation.acceptedAt) throw new Refusal("state_conflict", "This invitation was already accepted; remove the member instead.");
      if (invitation.revokedAt) return { revoked: true, alreadyRevoked: true };
      await tx.update(invitations).set({ revokedAt: sql`now()` }).where(eq(invitations.id, invitation.id));
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

/**
 * The invitation a link's token names, for the signed-in person, checked as accepting checks it (so
 * the preview refuses what accepting would, in the same words): unknown 404; for another address 403,
 * before anything about its state; used, revoked or expired 409. Acts as its organization after.
 */
async function invitationForLink(tx: Tx, actorPersonId: string, token: string) {
  const hash = await hashToken(token);
  // The token names its organization: a lookup by hash shows that one invitation, nothing else.
  await addLookup(tx, "invitation_hash", hash);
  const [invitation] = await tx
    .select({
      id: invitations.id,
      orgId: invitations.orgId,
      email: invitations.email,
      role: invitations.role,
      invitedBy: invitations.invitedBy,
      expiresAt: invitations.expiresAt,
      acceptedAt: invitations.acceptedAt,
      revokedAt: invitations.revokedAt,
      expired: sql<boolean>`${invitations.expiresAt} <= now()`,
    })
    .from(invitations)
    .where(eq(invitations.tokenHash, hash));
  if (!invitation) throw new Refusal("not_found", "This invitation link is not valid; if it was resent, use the newest link.");
  // A link can be forwarded or leaked: it admits only the person at the invited address (before its
  // state, which is the invitee's business). A person's address is the code host's public one, which
  // it lets a person pick only among their verified addresses, or the one an e-mail sign-in link proved.
  const invitee = await tx
    .select({ one: sql`1` })
    .from(people)
    .where(and(eq(people.id, actorPersonId), eq(sql`lower(${people.email})`, invitation.email)));
  if (invitee.length === 0) {
    throw new Refusal(
      "forbidden",
      "This invitation is for another e-mail address than your account's. Sign in as the person it was sent to (make the invited address " +
        "your public e-mail on the code host, or use the e-mail sign-in link), or ask for an invitation to your own address.",
    );
  }
  if (invitation.acceptedAt) throw new Refusal("state_conflict", "This invitation has already been used.");
  if (invitation.revokedAt) throw new Refusal("state_conflict", "This invitation was revoked; ask for a new one.");
  if (invitation.expired) throw new Refusal("state_conflict", "This invitation has expired; ask for it to be resent.");
  await actAs(tx, invitation.orgId);
  return invitation;
}

const LinkToken = z.object({ token: text({ min: 1, max: 200 }).describe("The token from the invitation link.") });

const preview = signedIn
  .meta({
    permission: null,
    gate: "reachable",
    summary: "What an invitation link offers, before accepting it: the organization's name, the role, who invited, until when",
  })
  .input(LinkToken)
  .query(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const invitation = await invitationForLink(tx, ctx.session.personId, input.token);
      const [organization] = await tx.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, invitation.orgId));
      const [inviter] = invitation.invitedBy ? await tx.select({ login: people.login }).from(people).where(eq(people.id, invitation.invitedBy)) : [];
      return {
        organization: { name: organization!.name },
        role: invitation.role,
        /** The inviter's login; null when their account was closed. */
        invitedBy: inviter?.login ?? null,
        expiresAt: invitation.expiresAt.toISOString(),
      };
    }),
  );

const accept = signedIn
  .meta({ permission: null, gate: "reachable", summary: "Accept an invitation by the token from its link: the signed-in account joins with its role" })
  .input(LinkToken)
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const { actorPersonId, actorLabel } = await actorOf(tx, ctx.session.personId);
      const invitation = await invitationForLink(tx, actorPersonId, input.token);
      if (!(await useInvitation(tx, invitation, { id: actorPersonId, label: actorLabel }))) {
        throw new Refusal("state_conflict", "This invitation has already been used.");
      }
      const [joined] = await tx
        .select({ slug: organizations.slug, name: organizations.name, role: memberships.role })
        .from(organizations)
        .innerJoin(memberships, eq(memberships.orgId, organizations.id))
        .where(and(eq(organizations.id, invitation.orgId), eq(memberships.personId, actorPersonId)));
      const { slug, name, role } = joined!;
      return { organization: { id: invitation.orgId, slug, name }, role };
    }),
  );

export const invitationsRouter = router({ list, create, resend, revoke, preview, accept });

// Who acted, as the audit log records it, for procedures that act on no organization (those that
// do get it from `authorize`, as ctx.actor).
export async function actorOf(tx: Tx, personId: string): Promise<{ actorPersonId: string; actorLabel: string }> {
  const [row] = await tx.select({ login: people.login, email: people.email }).from(people).where(eq(people.id, personId));
  return { actorPersonId: personId, actorLabel: row?.login ?? row?.email ?? personId };
}
