// The steps of an organization's deletion, in the spec's order. Each runs on its own: the outside
// world first (the billing provider, the code host, object storage: all safe to repeat), then one
// transaction that makes the step's change and records the step, so a deletion interrupted anywhere
// resumes at the first step not recorded.
import type { Tx } from "../../db/transaction";

export const STEPS = ["stop", "end_subscription", "wait", "revoke", "export", "delete"] as const;
export type Step = (typeof STEPS)[number];

export const nextStep = (step: Step): Step | null => STEPS[STEPS.indexOf(step) + 1] ?? null;

/** Steps after which the deletion can no longer be called off. */
export const callableOff = (step: Step) => STEPS.indexOf(step) <= STEPS.indexOf("wait");

/** Records a finished step and moves the deletion to the next one, in the step's own transaction. */
export async function recordStep(tx: Tx, orgId: string, step: Step, note: string, more: { waitUntil?: Date | null } = {}): Promise<void> {
  await tx.sql.query("INSERT INTO deletion_steps (org_id, step, note) VALUES ($1, $2, $3) ON CONFLICT (org_id, step) DO NOTHING", [orgId, step, note]);
  const next = nextStep(step);
  await tx.sql.query(
    `UPDATE deletions SET step = COALESCE($2, step), attempts = 0, last_error = NULL, next_attempt_at = now(),
       wait_until = CASE WHEN $3::boolean THEN $4 ELSE wait_until END WHERE org_id = $1`,
    [orgId, next, more.waitUntil !== undefined, more.waitUntil ?? null],
  );
}

/** How long a failed step waits before it is tried again: 1, 2, 4 ... minutes, at most an hour. */
export const backoffSeconds = (attempts: number) => Math.min(60 * 2 ** Math.max(attempts - 1, 0), 3600);
