// account.context and account.close (spec: Console RPC, Authentication rule 9).
import * as z from "zod";
import { text } from "../http/text";
import { actAs } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import { endMembership } from "../members/remove";
import { keepLastOwner } from "../members/role-rules";
import { readPersonContext } from "./store";
import { signOutEverywhere } from "../sessions/store";
import { router, signedIn } from "../rpc/trpc";

const context = signedIn
  .meta({ permission: "account.close", gate: "reachable", summary: "Who is signed in and the organizations they belong to" })
  .query(({ ctx }) => ctx.transaction((tx) => readPersonContext(tx, ctx.session.personId)));

const close = signedIn
  .meta({ permission: "account.close", gate: "reachable", summary: "Close one's own account: refused only for the last owner of an organization" })
  .input(z.strictObject({ confirm: text({ min: 1, max: 200 }).describe("What the person typed to confirm.") }))
  .mutation(({ ctx }) =>
    ctx.transaction(async (tx) => {
      const {
        session: { personId },
      } = ctx;
      const { person, organizations } = await readPersonContext(tx, personId);
      const label = person.login ?? person.email ?? personId;
      // Check every organization before changing any: a refusal leaves everything as it was.
      for (const org of organizations.filter((membership) => membership.role === "owner")) {
        await actAs(tx, org.id);
        const owners = await tx.sql.query("SELECT 1 FROM memberships WHERE org_id = $1 AND role = 'owner'", [org.id]);
        keepLastOwner(true, owners.rows.length, `You are the last owner of ${org.slug}; make someone else an owner first.`);
      }
      const sessionsEnded = await signOutEverywhere(tx, personId);
      for (const org of organizations) {
        await actAs(tx, org.id);
        // The audit log keeps the name as it was.
        const { tokensRevoked } = await endMembership(tx, org.id, personId);
        await appendAudit(tx, { orgId: org.id, action: "account.closed", actorPersonId: personId, actorLabel: label, target: label, data: { tokensRevoked } });
      }
      // The row stays (the audit log references it); everything that identifies the person goes.
      await tx.sql.query(
        "UPDATE people SET name = NULL, email = NULL, login = NULL, codehost_user_id = NULL, avatar_url = NULL, closed_at = now() WHERE id = $1",
        [personId],
      );
      return { closed: true, organizationsLeft: organizations.length, sessionsEnded };
    }),
  );

export const accountRouter = router({ context, close });
