// account.context and account.close (spec: Console RPC, Authentication rule 9).
import { and, eq, sql } from "drizzle-orm";
import * as z from "zod";
import { memberships } from "../../db/schema/organizations";
import { people } from "../../db/schema/people";
import { text } from "../http/text";
import { actAs } from "../../db/acting";
import { appendAudit } from "../audit";
import { endChannelsIn, MEMBERSHIP_ENDED } from "../live-channel";
import { endMembership } from "../members";
import { keepLastOwner } from "../members";
import { readPersonContext } from "../people";
import { signOutEverywhere } from "../sessions";
import { router, signedIn } from "../trpc/builder";

const context = signedIn
  .meta({ permission: "account.close", gate: "reachable", summary: "Who is signed in and the organizations they belong to" })
  .query(({ ctx }) => ctx.transaction((tx) => readPersonContext(tx, ctx.session.personId)));

const close = signedIn
  .meta({ permission: "account.close", gate: "reachable", summary: "Close one's own account: refused only for the last owner of an organization" })
  .input(z.strictObject({ confirm: text({ min: 1, max: 200 }).describe("What the person typed to confirm.") }))
  .mutation(({ ctx }) =>
    ctx
      .transaction(async (tx) => {
        const {
          session: { personId },
        } = ctx;
        const { person, organizations } = await readPersonContext(tx, personId);
        const label = person.login ?? person.email ?? personId;
        // Check every organization before changing any: a refusal leaves everything as it was.
        for (const org of organizations.filter((membership) => membership.role === "owner")) {
          await actAs(tx, org.id);
          const owners = await tx
            .select({ one: sql`1` })
            .from(memberships)
            .where(and(eq(memberships.orgId, org.id), eq(memberships.role, "owner")));
          keepLastOwner(true, owners.length, `You are the last owner of ${org.slug}; make someone else an owner first.`);
        }
        const { ended: sessionsEnded } = await signOutEverywhere(tx, personId);
        for (const org of organizations) {
          await actAs(tx, org.id);
          // The audit log keeps the name as it was.
          const { tokensRevoked } = await endMembership(tx, org.id, personId);
          await appendAudit(tx, {
            orgId: org.id,
            action: "account.closed",
            actorPersonId: personId,
            actorLabel: label,
            target: label,
            data: { tokensRevoked },
          });
        }
        // The row stays (the audit log references it); everything that identifies the person goes.
        await tx
          .update(people)
          .set({ name: null, email: null, login: null, codehostUserId: null, avatarUrl: null, closedAt: sql`now()` })
          .where(eq(people.id, personId));
        return { closed: true, organizationsLeft: organizations.map((org) => org.id), sessionsEnded };
      })
      .then(async ({ organizationsLeft, ...closed }) => {
        await endChannelsIn(ctx.env, organizationsLeft, { personId: ctx.session.personId }, MEMBERSHIP_ENDED);
        return { ...closed, organizationsLeft: organizationsLeft.length };
      }),
  );

export const accountRouter = router({ context, close });
