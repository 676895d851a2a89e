// The steps of an organization's deletion, in the spec's order. Each runs on its own: the outside
// world first (the billing provider, the code host, object storage: all safe to repeat), then one
// transaction that makes the step's change and records the step, so a deletion interrupted anywhere
// resumes at the first step not recorded.
import { eq, sql } from "drizzle-orm";
import { deletionSteps, deletions } from "../../db/schema/deletion";
import type { Tx } from "../../db/transaction";

export const STEPS = ["stop", "end_subscription", "wait", "revoke", "export", "delete"] as const;
export type Step = (typeof STEPS)[number];

export const nextStep = (step: Step): Step | null => STEPS[STEPS.indexOf(step) + 1] ?? null;

/** Steps after which the deletion can no longer be called off. */
export const callableOff = (step: Step) => STEPS.indexOf(step) <= STEPS.indexOf("wait");

/** Records a finished step and moves the deletion to the next one, in the step's own transaction. */
export async function recordStep(tx: Tx, orgId: string, step: Step, note: string, more: { waitUntil?: Date | null } = {}): Promise<void> {
  await tx
    .insert(deletionSteps)
    .values({ orgId, step, note })
    .onConflictDoNothing({ target: [deletionSteps.orgId, deletionSteps.step] });
  const next = nextStep(step);
  await tx
    .update(deletions)
    .set({
      ...(next ? { step: next } : {}),
      attempts: 0,
      lastError: null,
      nextAttemptAt: sql`now()`,
      ...(more.waitUntil !== undefined ? { waitUntil: more.waitUntil } : {}),
    })
    .where(eq(deletions.orgId, orgId));
}

/** How long a failed step waits before it is tried again: 1, 2, 4 ... minutes, at most an hour. */
export const backoffSeconds = (attempts: number) => Math.min(60 * 2 ** Math.max(attempts - 1, 0), 3600);

/** The statuses of a subscription the End subscription step cancels: those still paid for (they grant a plan). */
export const LIVE_SUBSCRIPTION = ["active", "trialing", "past_due"] as const;
