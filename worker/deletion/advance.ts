// Advancing deletions: the Cron Trigger takes every due deletion through as many steps as can finish
// now. A step that cannot finish yet (the paid period) waits; one that fails is retried with backoff,
// its sentence visible in the status, never skipped.
import { eq, sql } from "drizzle-orm";
import { deletions } from "../../db/schema/deletion";
import type { Db } from "../../db/transaction";
import { inTenant } from "../../db/transaction";
import { log } from "../log";
import { Unfinished } from "./batches";
import { backoffSeconds, STEPS } from "./steps";
import { batchesFromNow, NotYet, STEP_WORK, StepFailed, type DeletionDeps } from "./work";

/** `in_progress`: the Delete step removed rows and stopped, its time up; the deletion stays due. */
export type Advanced = "deleted" | "waiting" | "failed" | "called_off" | "not_due" | "none" | "advanced" | "in_progress";

/** When a step is tried again: at an instant (it waits), after a backoff (it failed), or now (it is under way, past any failure). */
type Retry = { at: Date } | { afterSeconds: number; sentence: string } | "now";

async function reschedule(deps: DeletionDeps, orgId: string, retry: Retry) {
  await inTenant(deps.connect, orgId, async (tx) => {
    await tx
      .update(deletions)
      .set(
        retry === "now"
          ? { attempts: 0, lastError: null }
          : "at" in retry
            ? { nextAttemptAt: retry.at }
            : {
                attempts: sql`${deletions.attempts} + 1`,
                lastError: retry.sentence,
                nextAttemptAt: sql`now() + make_interval(secs => ${retry.afterSeconds}::double precision)`,
              },
      )
      .where(eq(deletions.orgId, orgId));
  });
}

/** Runs the deletion's due steps, at most `maxSteps` of them (the Cron Trigger runs all that can finish). */
export async function advanceDeletion(deps: DeletionDeps, orgId: string, maxSteps: number = STEPS.length): Promise<Advanced> {
  let outcome: Advanced = "none";
  for (let run = 0; run < maxSteps; run++) {
    const [current] = await inTenant(deps.connect, orgId, (tx) =>
      tx
        .select({
          step: deletions.step,
          calledOff: sql<boolean>`${deletions.calledOffAt} IS NOT NULL`,
          due: sql<boolean>`${deletions.nextAttemptAt} <= now()`,
          attempts: deletions.attempts,
        })
        .from(deletions)
        .where(eq(deletions.orgId, orgId)),
    );
    // Deleted (its row went with the organization) or called off: nothing is left to drive.
    if (!current) return outcome === "none" ? "none" : "deleted";
    if (current.calledOff) return "called_off";
    if (!current.due) return run === 0 ? "not_due" : outcome;
    try {
      await STEP_WORK[current.step](deps, orgId);
      outcome = current.step === "delete" ? "deleted" : "advanced";
    } catch (error) {
      if (error instanceof NotYet) {
        await reschedule(deps, orgId, { at: error.until });
        return "waiting";
      }
      if (error instanceof Unfinished) {
        await reschedule(deps, orgId, "now");
        return "in_progress";
      }
      const sentence = error instanceof StepFailed ? error.message : "The step failed unexpectedly; it is tried again.";
      log("error", "deletion.step_failed", {
        step: current.step,
        attempt: current.attempts + 1,
        errorName: error instanceof Error ? error.name : typeof error,
      });
      await reschedule(deps, orgId, { afterSeconds: backoffSeconds(current.attempts + 1), sentence });
      return "failed";
    }
  }
  return outcome;
}

/** Due deletions across organizations, oldest first: read as the maintenance role, which sees only those. */
export async function dueDeletions(maintenance: Db, limit = 25): Promise<string[]> {
  const rows = await maintenance.select({ orgId: deletions.orgId }).from(deletions).orderBy(deletions.nextAttemptAt).limit(limit);
  return rows.map((row) => row.orgId);
}

/** The Cron Trigger's pass over the due deletions: their Delete steps share one time budget (batches.ts). */
export async function advanceDueDeletions(deps: DeletionDeps, due: readonly string[]): Promise<Record<string, Advanced>> {
  const swept = { ...deps, batches: deps.batches ?? batchesFromNow() };
  const outcomes: Record<string, Advanced> = {};
  for (const orgId of due) outcomes[orgId] = await advanceDeletion(swept, orgId);
  return outcomes;
}
