// Advancing deletions: the Cron Trigger takes every due deletion through as many steps as can finish
// now. A step that cannot finish yet (the paid period) waits; one that fails is retried with backoff,
// its sentence visible in the status, never skipped.
import type { SqlClient } from "../../db/sql-client";
import { inTenant } from "../../db/transaction";
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
    await tx.sql.query(
      failure
        ? `UPDATE deletions SET attempts = attempts + 1, last_error = $3,
             next_attempt_at = now() + make_interval(secs => $2::double precision) WHERE org_id = $1`
        : "UPDATE deletions SET next_attempt_at = $2::timestamptz WHERE org_id = $1",
      failure ? [orgId, at, failure.sentence] : [orgId, at],
    );
  });
}

/** Runs the deletion's due steps, at most `maxSteps` of them (the Cron Trigger runs all that can finish). */
export async function advanceDeletion(deps: DeletionDeps, orgId: string, maxSteps: number = STEPS.length): Promise<Advanced> {
  let outcome: Advanced = "none";
  for (let run = 0; run < maxSteps; run++) {
    const current = await inTenant(
      deps.connect,
      orgId,
      async (tx) =>
        (
          await tx.sql.query<Current>(
            "SELECT step, called_off_at IS NOT NULL AS called_off, next_attempt_at <= now() AS due, attempts FROM deletions WHERE org_id = $1",
            [orgId],
          )
        ).rows[0],
    );
    // Deleted (its row went with the organization) or called off: nothing is left to drive.
    if (!current) return outcome === "none" ? "none" : "deleted";
    if (current.called_off) return "called_off";
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
      log("error", "deletion.step_failed", {
        step: current.step,
        attempt: current.attempts + 1,
        errorName: error instanceof Error ? error.name : typeof error,
      });
      await reschedule(deps, orgId, String(backoffSeconds(current.attempts + 1)), { sentence });
      return "failed";
    }
  }
  return outcome;
}

/** Due deletions across organizations, oldest first: read as the maintenance role, which sees only those. */
export async function dueDeletions(maintenance: SqlClient, limit = 25): Promise<string[]> {
  const { rows } = await maintenance.query<{ org_id: string }>("SELECT org_id FROM deletions ORDER BY next_attempt_at LIMIT $1", [limit]);
  return rows.map((row) => row.org_id);
}

/** The Cron Trigger's pass over the due deletions. */
export async function advanceDueDeletions(deps: DeletionDeps, due: readonly string[]): Promise<Record<string, Advanced>> {
  const outcomes: Record<string, Advanced> = {};
  for (const orgId of due) outcomes[orgId] = await advanceDeletion(deps, orgId);
  return outcomes;
}
