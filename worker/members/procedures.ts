// members.list, members.changeRole, members.remove, members.sync (spec: Authentication rules 4, 5;
// Organization and membership facts). An owner is made only by an owner, and no organization is
// ever left without one.
import { and, asc, eq, sql } from "drizzle-orm";
import * as z from "zod";
import { memberships, organizations } from "../../db/schema/organizations";
import { people } from "../../db/schema/people";
import { Refusal } from "../http/refusal";
import { endChannels, endChannelsIn, MEMBERSHIP_ENDED, ROLE_CHANGED, SIGNED_OUT } from "../live-channel";
import { LIVE_CLOSE } from "../shared/live";
import { ROLES } from "../../db/enums";
import type { Tx } from "../../db/transaction";
import { appendAudit } from "../audit";
import { installationToken } from "../codehost";
import { accountMembers } from "../codehost";
import { CodehostUnreachable } from "../codehost";
import { ownInstallations } from "../codehost";
import { CodehostListFailed } from "../codehost";
import type { CodehostConfig } from "../config/types";
import { decideRole, keepLastOwner, onlyOwnerTouchesOwners } from "./role-rules";
import { removeMember } from "./remove";
import { inOrganization, router, type OrgContext } from "../trpc/builder";
import { decodeCursor, KeyTime, KeyUuid, keyset, Paging, pageOf } from "../http/paging";

/** What a member row shows of the membership and its person. */
const MEMBER = {
  personId: memberships.personId,
  login: people.login,
  name: people.name,
  avatarUrl: people.avatarUrl,
  role: memberships.role,
  roleSource: memberships.roleSource,
  createdAt: memberships.createdAt,
};

const members = (tx: Tx, orgId: string) =>
  tx
    .select({
      ...MEMBER,
      /** The code-host account's numeric id, as text; null for a person who signed in only by e-mail. */
      codehostUserId: sql<string | null>`${people.codehostUserId}::text`,
    })
    .from(memberships)
    .innerJoin(people, eq(people.id, memberships.personId))
    .where(eq(memberships.orgId, orgId))
    .orderBy(sql`lower(${people.login})`, asc(memberships.createdAt));

type MemberRow = Awaited<ReturnType<typeof members>>[number];

/** A change to the membership in a transaction of its own, with the organization locked so that owner counts cannot race. */
function changingMembers<T>(ctx: OrgContext, work: (tx: Tx, rows: MemberRow[], actor: OrgContext["actor"]) => Promise<T>): Promise<T> {
  return ctx.transaction(async (tx) => {
    await tx.select({ one: sql`1` }).from(organizations).where(eq(organizations.id, ctx.org.id)).for("update");
    return work(tx, await members(tx, ctx.org.id), ctx.actor);
  });
}

const ownerCount = (rows: MemberRow[]) => rows.filter((row) => row.role === "owner").length;

const PersonInput = z.object({ personId: z.uuid() });

function target(rows: MemberRow[], personId: string): MemberRow {
  const row = rows.find((member) => member.personId === personId);
  if (!row) throw new Refusal("not_found", "That person is not a member of this organization.");
  return row;
}

/** A page of the organization's members in the order they joined, after `after`'s key (index memberships_joined). */
export const membersPage = (tx: Tx, orgId: string, after: readonly [string, string] | null, limit: number) =>
  tx
    .select({
      ...MEMBER,
      keyAt: sql<string>`${memberships.createdAt}::text`,
      lastOwner: sql<boolean>`${memberships.role} = 'owner' AND (SELECT count(*) FROM memberships o WHERE o.org_id = ${memberships.orgId} AND o.role = 'owner') = 1`,
    })
    .from(memberships)
    .innerJoin(people, eq(people.id, memberships.personId))
    .where(and(eq(memberships.orgId, orgId), keyset([sql`${memberships.createdAt}`, sql`${memberships.personId}`], after, "asc")))
    .orderBy(asc(memberships.createdAt), asc(memberships.personId))
    .limit(limit);

const list = inOrganization
  .meta({ permission: null, gate: "gated", summary: "The organization's members and their roles, in the order they joined (paged)" })
  .input(z.object({ ...Paging }))
  .query(({ ctx, input }) =>
    ctx.transaction(async (tx) =>
      pageOf(
        await membersPage(tx, ctx.org.id, decodeCursor(input.cursor, [KeyTime, KeyUuid]), input.limit + 1),
        input.limit,
        (row) => [row.keyAt, row.personId],
        (row) => ({
          personId: row.personId,
          login: row.login,
          name: row.name,
          avatarUrl: row.avatarUrl,
          role: row.role,
          manual: row.roleSource === "manual",
          joinedAt: row.createdAt.toISOString(),
          /** The organization's only owner: neither removed nor given another role until another member is an owner. */
          lastOwner: row.lastOwner,
        }),
      ),
    ),
  );

const changeRole = inOrganization
  .meta({ permission: "members.manage", gate: "gated", summary: "Change a member's role; owner promotion is marked manual" })
  .input(PersonInput.extend({ role: z.enum(ROLES) }))
  .mutation(({ ctx, input }) =>
    changingMembers(ctx, async (tx, rows, actor) => {
      const member = target(rows, input.personId);
      onlyOwnerTouchesOwners(ctx.org.role, [input.role, member.role], "make someone an owner or change an owner's role");
      keepLastOwner(
        member.role === "owner" && input.role !== "owner",
        ownerCount(rows),
        "This is the organization's last owner; make someone else an owner first.",
      );
      // A role set on the Members page is manual: sign-in never overwrites it.
      await tx
        .update(memberships)
        .set({ role: input.role, roleSource: "manual", updatedAt: sql`now()` })
        .where(and(eq(memberships.orgId, ctx.org.id), eq(memberships.personId, input.personId)));
      await appendAudit(tx, {
        orgId: ctx.org.id,
        ...actor,
        action: "member.role_changed",
        target: member.login ?? input.personId,
        data: { from: member.role, to: input.role },
      });
      return { personId: input.personId, role: input.role };
    }).then(async (changed) => {
      await endChannels(ctx.env, ctx.org.id, { personId: input.personId }, ROLE_CHANGED, LIVE_CLOSE.renew);
      return changed;
    }),
  );

/** A removed member's channels close here (membership ended) and in their other organizations (signed out everywhere). */
const endedHereAndElsewhere = (ctx: OrgContext, personId: string, elsewhere: string[]) =>
  Promise.all([endChannels(ctx.env, ctx.org.id, { personId }, MEMBERSHIP_ENDED), endChannelsIn(ctx.env, elsewhere, { personId }, SIGNED_OUT)]);

const remove = inOrganization
  .meta({ permission: "members.manage", gate: "gated", summary: "Remove a member; they are signed out in the same transaction" })
  .input(PersonInput)
  .mutation(({ ctx, input }) =>
    changingMembers(ctx, async (tx, rows, actor) => {
      const member = target(rows, input.personId);
      onlyOwnerTouchesOwners(ctx.org.role, [member.role], "remove an owner");
      keepLastOwner(member.role === "owner", ownerCount(rows), "This is the organization's last owner; it cannot be removed.");
      return (await removeMember(tx, ctx.org.id, input.personId, { personId: actor.actorPersonId, label: actor.actorLabel })) ?? [];
    }).then(async (elsewhere) => {
      await endedHereAndElsewhere(ctx, input.personId, elsewhere);
      return { removed: true };
    }),
  );

/**
 * What the code host lists as members of the organization's installed accounts (read first, in its
 * transaction): account id -> role. Asked with no transaction open.
 */
async function codehostMembers(codehost: CodehostConfig, installed: Awaited<ReturnType<typeof ownInstallations>>): Promise<Map<string, "admin" | "member">> {
  const listed = new Map<string, "admin" | "member">();
  // One installation per account (by id), a live one first, under the login its latest delivery or sign-in showed.
  for (const installation of installed.filter((row, i) => i === 0 || installed[i - 1]!.accountId !== row.accountId)) {
    const account = installation.accountLogin;
    try {
      const access = await installationToken(codehost, installation, account);
      if (!access.ok) throw new Refusal("member_list_unavailable", access.reason);
      for (const [id, role] of await accountMembers(codehost.apiBase, { login: account, id: installation.accountId }, access.token)) listed.set(id, role);
    } catch (error) {
      // A code host that fails to answer is the person's to retry, not our failure.
      if (!(error instanceof CodehostListFailed || error instanceof CodehostUnreachable)) throw error;
      throw new Refusal("member_list_unavailable", `The code host would not list the members of ${account} (${error.message}); nothing was changed.`);
    }
  }
  return listed;
}

const sync = inOrganization
  .meta({ permission: "members.manage", gate: "gated", summary: "Sync members from the code host: the only thing that removes access besides removal" })
  .mutation(async ({ ctx }) => {
    // No transaction stays open while the code host is asked: the installations are read, then the changes made in a new one.
    const installed = await ctx.transaction(ownInstallations);
    const listed = await codehostMembers(ctx.config.codehost, installed);
    if (listed.size === 0) {
      throw new Refusal("member_list_unavailable", "The code host listed no members, so nothing was changed: a sync never empties an organization.");
    }
    // Whose live channels close (removed) or open again under their new role, once the changes committed.
    const removed: Array<{ personId: string; elsewhere: string[] }> = [];
    const changedIds: string[] = [];
    const result = await changingMembers(ctx, async (tx, rows, actor) => {
      let owners = ownerCount(rows);
      const result = { changed: [] as string[], removed: [] as string[], kept: [] as string[] };
      for (const row of rows) {
        const label = row.login ?? row.personId;
        // By the account's numeric id: a renamed member stays, a login someone else took is nobody here.
        const codehostRole = row.codehostUserId ? listed.get(row.codehostUserId) : undefined;
        if (!codehostRole) {
          if (row.role === "owner" && owners === 1) {
            result.kept.push(label); // never the last owner
            continue;
          }
          if (row.role === "owner") owners -= 1;
          const channels = await removeMember(tx, ctx.org.id, row.personId, { personId: actor.actorPersonId, label: `${actor.actorLabel} (sync)` });
          result.removed.push(label);
          removed.push({ personId: row.personId, elsewhere: channels ?? [] });
          continue;
        }
        const decision = decideRole({ existing: { role: row.role, roleSource: row.roleSource }, organizationHasMembers: true, codehostRole });
        if (!decision.change) continue;
        await tx
          .update(memberships)
          .set({ role: decision.role, roleSource: "sync", updatedAt: sql`now()` })
          .where(and(eq(memberships.orgId, ctx.org.id), eq(memberships.personId, row.personId)));
        await appendAudit(tx, {
          orgId: ctx.org.id,
          ...actor,
          action: "member.role_synced",
          target: label,
          data: { from: row.role, to: decision.role, source: "sync" },
        });
        result.changed.push(label);
        changedIds.push(row.personId);
      }
      return result;
    });
    await Promise.all([
      ...removed.map(({ personId, elsewhere }) => endedHereAndElsewhere(ctx, personId, elsewhere)),
      ...changedIds.map((personId) => endChannels(ctx.env, ctx.org.id, { personId }, ROLE_CHANGED, LIVE_CLOSE.renew)),
    ]);
    return result;
  });

export const membersRouter = router({ list, changeRole, remove, sync });
