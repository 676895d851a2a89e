// sessions.list, sessions.signOut, sessions.signOutAll (sessions.manage): the sessions of the
// organization's members. Never a token or a hash.
import { and, desc, eq, sql } from "drizzle-orm";
import * as z from "zod";
import { memberships } from "../../db/schema/organizations";
import { people, sessions } from "../../db/schema/people";
import { Refusal } from "../http/refusal";
import { appendAudit } from "../audit";
import { endChannelsIn, SIGNED_OUT } from "../live-channel";
import { LIVE_SESSION, organizationsOf, signOut as endSession, signOutEverywhere } from "./store";
import { inOrganization, router } from "../trpc/builder";

const list = inOrganization
  .meta({ permission: "sessions.manage", gate: "reachable", summary: "Live sessions of the organization's members" })
  .query(({ ctx }) =>
    ctx.transaction(async (tx) => {
      const rows = await tx
        .select({
          id: sessions.id,
          personId: sessions.personId,
          login: people.login,
          createdAt: sessions.createdAt,
          lastSeenAt: sessions.lastSeenAt,
          clientAddress: sessions.clientAddress,
          userAgent: sessions.userAgent,
        })
        .from(sessions)
        .innerJoin(memberships, and(eq(memberships.personId, sessions.personId), eq(memberships.orgId, ctx.org.id)))
        .innerJoin(people, eq(people.id, sessions.personId))
        .where(LIVE_SESSION)
        .orderBy(desc(sessions.lastSeenAt));
      return rows.map((row) => ({
        id: row.id,
        personId: row.personId,
        login: row.login,
        createdAt: row.createdAt.toISOString(),
        lastSeenAt: row.lastSeenAt.toISOString(),
        clientAddress: row.clientAddress,
        userAgent: row.userAgent,
        current: row.id === ctx.session.id,
      }));
    }),
  );

const signOut = inOrganization
  .meta({ permission: "sessions.manage", gate: "reachable", summary: "Sign out one session of a member" })
  .input(z.object({ sessionId: z.uuid() }))
  .mutation(({ ctx, input }) =>
    ctx
      .transaction(async (tx) => {
        // Row-level security shows only sessions of this organization's members.
        const [found] = await tx
          .select({ login: people.login, personId: sessions.personId })
          .from(sessions)
          .innerJoin(people, eq(people.id, sessions.personId))
          .innerJoin(memberships, and(eq(memberships.personId, sessions.personId), eq(memberships.orgId, ctx.org.id)))
          .where(eq(sessions.id, input.sessionId));
        if (!found) throw new Refusal("not_found", "No such session among this organization's members.");
        await endSession(tx, input.sessionId);
        await appendAudit(tx, { orgId: ctx.org.id, ...ctx.actor, action: "session.signed_out", target: found.login ?? input.sessionId });
        return organizationsOf(tx, found.personId);
      })
      .then(async (organizations) => {
        // The session's sockets may be open in any organization of its person.
        await endChannelsIn(ctx.env, organizations, { sessionId: input.sessionId }, SIGNED_OUT);
        return { signedOut: true };
      }),
  );

const signOutAll = inOrganization
  .meta({ permission: "sessions.manage", gate: "reachable", summary: "Sign a member out everywhere" })
  .input(z.object({ personId: z.uuid() }))
  .mutation(({ ctx, input }) =>
    ctx
      .transaction(async (tx) => {
        const [member] = await tx
          .select({ one: sql`1` })
          .from(memberships)
          .where(and(eq(memberships.orgId, ctx.org.id), eq(memberships.personId, input.personId)));
        if (!member) throw new Refusal("not_found", "That person is not a member of this organization.");
        const { ended, organizations } = await signOutEverywhere(tx, input.personId);
        await appendAudit(tx, { orgId: ctx.org.id, ...ctx.actor, action: "session.signed_out_everywhere", target: input.personId, data: { ended } });
        return { ended, organizations };
      })
      .then(async ({ ended, organizations }) => {
        await endChannelsIn(ctx.env, organizations, { personId: input.personId }, SIGNED_OUT);
        return { ended };
      }),
  );

export const sessionsRouter = router({ list, signOut, signOutAll });
