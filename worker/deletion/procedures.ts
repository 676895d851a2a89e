// deletion.request, deletion.status and deletion.callOff (organization.delete, owners): deleting the
// organization (spec: Organization deletion). The Cron Trigger runs the steps; the status shows them.
import * as z from "zod";
import { Refusal } from "../http/refusal";
import { text } from "../http/text";
import { callBilling } from "../billing/provider";
import { callOffDeletion, requestDeletion } from "./request";
import { inOrganization, router, type OrgContext } from "../rpc/trpc";

const actorOf = (ctx: OrgContext) => ({ personId: ctx.actor.actorPersonId, label: ctx.actor.actorLabel });

const request = inOrganization
  .meta({ permission: "organization.delete", gate: "reachable", summary: "Request the organization's deletion (type its slug); answers the export link, once" })
  .input(z.object({ confirm: text({ min: 1, max: 200 }).describe("The organization's slug, typed by the person.") }))
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const { rows } = await tx.sql.query<{ slug: string }>("SELECT slug FROM organizations WHERE id = $1", [ctx.org.id]);
      if (input.confirm !== rows[0]!.slug) {
        throw new Refusal("invalid_request", `Type the organization's slug (${rows[0]!.slug}) to confirm its deletion.`);
      }
      const requested = await requestDeletion(tx, ctx.org.id, actorOf(ctx));
      if (!requested) throw new Refusal("state_conflict", "This organization's deletion is already under way; follow it on the deletion page.");
      return {
        requested: true,
        /** Shown once: opens the organization's export for 7 days once it is taken. */
        exportLink: `${ctx.origin}/exports/deletion?token=${encodeURIComponent(requested.token)}`,
      };
    }),
  );

const status = inOrganization
  .meta({ permission: "organization.delete", gate: "reachable", summary: "The deletion's progress: its steps, the next one, a failure being retried" })
  .query(({ ctx }) =>
    ctx.transaction(async (tx) => {
      const { rows } = await tx.sql.query<{
        requested_at: Date;
        step: string;
        called_off_at: Date | null;
        wait_until: Date | null;
        attempts: number;
        last_error: string | null;
        next_attempt_at: Date;
      }>("SELECT requested_at, step, called_off_at, wait_until, attempts, last_error, next_attempt_at FROM deletions WHERE org_id = $1", [ctx.org.id]);
      const deletion = rows[0];
      if (!deletion) return { deletion: null };
      const steps = await tx.sql.query<{ step: string; done_at: Date; note: string }>(
        "SELECT step, done_at, note FROM deletion_steps WHERE org_id = $1 ORDER BY done_at",
        [ctx.org.id],
      );
      return {
        deletion: {
          requestedAt: deletion.requested_at.toISOString(),
          nextStep: deletion.called_off_at ? null : deletion.step,
          calledOffAt: deletion.called_off_at?.toISOString() ?? null,
          waitUntil: deletion.wait_until?.toISOString() ?? null,
          failedAttempts: deletion.attempts,
          lastError: deletion.last_error,
          nextAttemptAt: deletion.next_attempt_at.toISOString(),
          steps: steps.rows.map((row) => ({ step: row.step, doneAt: row.done_at.toISOString(), note: row.note })),
        },
      };
    }),
  );

const callOff = inOrganization
  .meta({
    permission: "organization.delete",
    gate: "reachable",
    summary: "Call the deletion off while it waits: lifts the suspension, resumes the subscription",
  })
  .mutation(async ({ ctx }) => {
    const outcome = await ctx.transaction((tx) => callOffDeletion(tx, ctx.org.id, actorOf(ctx)));
    if (!outcome.ok) {
      throw outcome.reason === "none"
        ? new Refusal("not_found", "This organization has no deletion under way.")
        : new Refusal("state_conflict", `The deletion is past its waiting period (next: ${outcome.step}); it can no longer be called off.`);
    }
    // Committed: the subscriptions the deletion cancelled at period end go on; a refusal leaves them cancelled, and says so.
    const { provider } = ctx.config.billing;
    const unresumed: string[] = [];
    for (const subscription of provider ? outcome.subscriptions : []) {
      const answer = await callBilling(ctx.config.billing, provider!, `/v1/subscriptions/${encodeURIComponent(subscription)}`, {
        cancel_at_period_end: "false",
      }).catch(() => null);
      if (answer?.status !== 200) unresumed.push(subscription);
    }
    return { calledOff: true, subscriptionsStillEnding: unresumed };
  });

export const deletionRouter = router({ request, status, callOff });
