// Advancing deletions: the Cron Trigger takes every due deletion through as many steps as can finish
// now. A step that cannot finish yet (the paid period) waits; one that fails is retried with backoff,
// its sentence visible in the status, never skipped.
import { inTransaction, inTenant } from "../../db/transaction";
import { log } from "../log";
import { backoffSeconds, STEPS, type Step } from "./steps";
import { NotYet, STEP_WORK, StepFailed, type DeletionDeps } from "./work";

export type Advanced = "deleted" | "waiting" | "failed" | "called_off" | "not_due" | "none" | "advanced";

interface Current {
  step: Step;
  called_off: boolean;
  due: boolean;
  attempts: number;
}

async function reschedule(deps: DeletionDeps, orgId: string, at: string, failure?: { sentence: string }) {
  await inTenant(deps.connect, orgId, async (tx) => {
    const { rows } = await tx.sql.query<{ next_attempt_at: Date }>(
      failure
        ? `UPDATE deletions SET attempts = attempts + 1, last_error = $3,
             next_attempt_at = now() + make_interval(secs => $2::double precision) WHERE org_id = $1 RETURNING next_attempt_at`
        : "UPDATE deletions SET next_attempt_at = $2::timestamptz WHERE org_id = $1 RETURNING next_attempt_at",
      failure ? [orgId, at, failure.sentence] : [orgId, at],
    );
    await tx.sql.query("UPDATE deletion_queue SET next_attempt_at = $2 WHERE org_id = $1", [orgId, rows[0]!.next_attempt_at]);
  });
}

/** Runs the deletion's due steps, at most `maxSteps` of them (the Cron Trigger runs all that can finish). */
export async function advanceDeletion(deps: DeletionDeps, orgId: string, maxSteps: number = STEPS.length): Promise<Advanced> {
  let outcome: Advanced = "none";
  for (let run = 0; run < maxSteps; run++) {
    const current = await inTenant(deps.connect, orgId, async (tx) =>
      (await tx.sql.query<Current>(
        "SELECT step, called_off_at IS NOT NULL AS called_off, next_attempt_at <= now() AS due, attempts FROM deletions WHERE org_id = $1",
        [orgId],
      )).rows[0]);
    if (!current || current.called_off) {
      // Deleted (its row went with the organization) or called off: nothing is left to drive.
      await inTransaction(deps.connect, {}, (tx) => tx.sql.query("DELETE FROM deletion_queue WHERE org_id = $1", [orgId]));
      return current ? "called_off" : outcome === "none" ? "none" : "deleted";
    }
    if (!current.due) return run === 0 ? "not_due" : outcome;
    try {
      await STEP_WORK[current.step](deps, orgId);
      outcome = current.step === "delete" ? "deleted" : "advanced";
    } catch (error) {
      if (error instanceof NotYet) {
        await reschedule(deps, orgId, error.until.toISOString());
        return "waiting";
      }
      const sentence = error instanceof StepFailed ? error.message : "The step failed unexpectedly; it is tried again.";
      log("error", "deletion.step_failed", { step: current.step, attempt: current.attempts + 1, errorName: error instanceof Error ? error.name : typeof error });
      await reschedule(deps, orgId, String(backoffSeconds(current.attempts + 1)), { sentence });
      return "failed";
    }
  }
  return outcome;
}

/** The Cron Trigger's pass: every deletion that is due, oldest first. */
export async function advanceDueDeletions(deps: DeletionDeps, limit = 25): Promise<Record<string, Advanced>> {
  const due = await inTransaction(deps.connect, {}, async (tx) =>
    (await tx.sql.query<{ org_id: string }>("SELECT org_id FROM deletion_queue WHERE next_attempt_at <= now() ORDER BY next_attempt_at LIMIT $1", [limit])).rows);
  const outcomes: Record<string, Advanced> = {};
  for (const { org_id: orgId } of due) outcomes[orgId] = await advanceDeletion(deps, orgId);
  return outcomes;
}
