// sessions.list, sessions.signOut, sessions.signOutAll (sessions.manage): the sessions of the
// organization's members. Never a token or a hash.
import * as z from "zod";
import { Refusal } from "../http/refusal";
import { appendAudit } from "../audit/append";
import { LIVE_SESSION, signOut as endSession, signOutEverywhere } from "./store";
import { inOrganization, router } from "../rpc/trpc";

const list = inOrganization
  .meta({ permission: "sessions.manage", gate: "reachable", summary: "Live sessions of the organization's members" })
  .query(({ ctx }) =>
    ctx.transaction(async (tx) => {
      const { rows } = await tx.sql.query<{
        id: string;
        person_id: string;
        login: string | null;
        created_at: Date;
        last_seen_at: Date;
        client_address: string | null;
        user_agent: string | null;
      }>(
        `SELECT s.id, s.person_id, p.login, s.created_at, s.last_seen_at, s.client_address, s.user_agent
       FROM sessions s JOIN memberships m ON m.person_id = s.person_id AND m.org_id = $1 JOIN people p ON p.id = s.person_id
       WHERE ${LIVE_SESSION} ORDER BY s.last_seen_at DESC`,
        [ctx.org.id],
      );
      return rows.map((row) => ({
        id: row.id,
        personId: row.person_id,
        login: row.login,
        createdAt: row.created_at.toISOString(),
        lastSeenAt: row.last_seen_at.toISOString(),
        clientAddress: row.client_address,
        userAgent: row.user_agent,
        current: row.id === ctx.session.id,
      }));
    }),
  );

const signOut = inOrganization
  .meta({ permission: "sessions.manage", gate: "reachable", summary: "Sign out one session of a member" })
  .input(z.object({ sessionId: z.uuid() }))
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      // Row-level security shows only sessions of this organization's members.
      const found = await tx.sql.query<{ login: string | null }>(
        `SELECT p.login FROM sessions s JOIN people p ON p.id = s.person_id JOIN memberships m ON m.person_id = s.person_id AND m.org_id = $2 WHERE s.id = $1`,
        [input.sessionId, ctx.org.id],
      );
      if (!found.rows[0]) throw new Refusal("not_found", "No such session among this organization's members.");
      await endSession(tx, input.sessionId);
      await appendAudit(tx, { orgId: ctx.org.id, ...ctx.actor, action: "session.signed_out", target: found.rows[0].login ?? input.sessionId });
      return { signedOut: true };
    }),
  );

const signOutAll = inOrganization
  .meta({ permission: "sessions.manage", gate: "reachable", summary: "Sign a member out everywhere" })
  .input(z.object({ personId: z.uuid() }))
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const member = await tx.sql.query("SELECT 1 FROM memberships WHERE org_id = $1 AND person_id = $2", [ctx.org.id, input.personId]);
      if (!member.rows[0]) throw new Refusal("not_found", "That person is not a member of this organization.");
      const ended = await signOutEverywhere(tx, input.personId);
      await appendAudit(tx, { orgId: ctx.org.id, ...ctx.actor, action: "session.signed_out_everywhere", target: input.personId, data: { ended } });
      return { ended };
    }),
  );

export const sessionsRouter = router({ list, signOut, signOutAll });
