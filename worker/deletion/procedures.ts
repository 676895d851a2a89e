// deletion.request, deletion.status and deletion.callOff (organization.delete, owners): deleting the
// organization (spec: Organization deletion). The Cron Trigger runs the steps; the status shows them.
import { and, eq, inArray, max } from "drizzle-orm";
import * as z from "zod";
import { deletions, deletionSteps } from "../../db/schema/deletion";
import { organizations } from "../../db/schema/organizations";
import { subscriptions } from "../../db/schema/billing";
import type { Tx } from "../../db/transaction";
import { Refusal } from "../http/refusal";
import { text } from "../http/text";
import { callBilling } from "../billing";
import { callOffDeletion, requestDeletion } from "./request";
import { LIVE_SUBSCRIPTION } from "./steps";
import { inOrganization, router, type OrgContext } from "../trpc/builder";

const actorOf = (ctx: OrgContext) => ({ personId: ctx.actor.actorPersonId, label: ctx.actor.actorLabel });

const request = inOrganization
  .meta({ permission: "organization.delete", gate: "reachable", summary: "Request the organization's deletion (type its slug); answers the export link, once" })
  .input(z.object({ confirm: text({ min: 1, max: 200 }).describe("The organization's slug, typed by the person.") }))
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const [organization] = await tx.select({ slug: organizations.slug }).from(organizations).where(eq(organizations.id, ctx.org.id));
      if (input.confirm !== organization!.slug) {
        throw new Refusal("invalid_request", `Type the organization's slug (${organization!.slug}) to confirm its deletion.`);
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

/**
 * Until when a deletion requested now would wait: the end of the paid period of the live subscriptions
 * (the End subscription step cancels them at period end, and Wait holds until then; work.ts).
 */
async function paidPeriodEnd(tx: Tx, orgId: string): Promise<string | null> {
  const [row] = await tx
    .select({ end: max(subscriptions.currentPeriodEnd) })
    .from(subscriptions)
    .where(and(eq(subscriptions.orgId, orgId), inArray(subscriptions.status, [...LIVE_SUBSCRIPTION])));
  return row?.end?.toISOString() ?? null;
}

const status = inOrganization
  .meta({
    permission: "organization.delete",
    gate: "reachable",
    summary: "The deletion's progress: its steps, the next one, a failure being retried; and until when a live subscription holds a deletion (paidUntil)",
  })
  .query(({ ctx }) =>
    ctx.transaction(async (tx) => {
      const [deletion] = await tx
        .select({
          requestedAt: deletions.requestedAt,
          step: deletions.step,
          calledOffAt: deletions.calledOffAt,
          waitUntil: deletions.waitUntil,
          attempts: deletions.attempts,
          lastError: deletions.lastError,
          nextAttemptAt: deletions.nextAttemptAt,
          rowsRemoved: deletions.rowsRemoved,
        })
        .from(deletions)
        .where(eq(deletions.orgId, ctx.org.id));
      const paidUntil = ctx.config.billing.provider ? await paidPeriodEnd(tx, ctx.org.id) : null;
      if (!deletion) return { deletion: null, paidUntil };
      const steps = await tx
        .select({ step: deletionSteps.step, doneAt: deletionSteps.doneAt, note: deletionSteps.note })
        .from(deletionSteps)
        .where(eq(deletionSteps.orgId, ctx.org.id))
        .orderBy(deletionSteps.doneAt);
      return {
        deletion: {
          requestedAt: deletion.requestedAt.toISOString(),
          nextStep: deletion.calledOffAt ? null : deletion.step,
          calledOffAt: deletion.calledOffAt?.toISOString() ?? null,
          waitUntil: deletion.waitUntil?.toISOString() ?? null,
          failedAttempts: deletion.attempts,
          lastError: deletion.lastError,
          nextAttemptAt: deletion.nextAttemptAt.toISOString(),
          /** The Delete step's progress: it removes the rows in batches, over as many sweeps as it takes. */
          rowsRemoved: deletion.rowsRemoved,
          steps: steps.map((row) => ({ step: row.step, doneAt: row.doneAt.toISOString(), note: row.note })),
        },
        paidUntil,
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
