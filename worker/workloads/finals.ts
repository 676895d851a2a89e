// Final workload events (workload.finished, workload.cancelled) arriving through POST /v1/events
// (spec: Events rule 5). Applied when the sender holds the run (its lease is the current one) or
// nothing holds it (the lease expired); otherwise the event is stored whole, the run is unchanged,
// and the outcome says why in a sentence.
import { and, eq, lte, ne, or, sql } from "drizzle-orm";
import * as z from "zod";
import { workloadRuns } from "../../db/schema/workloads";
import type { Tx } from "../../db/transaction";
import type { StoreStep } from "../events";
import type { EventType } from "../events";

/** The payload a final event must carry: which run, and the lease the sender holds. */
export const FinalEventPayload = z.looseObject({
  runId: z.uuid(),
  leaseId: z.uuid().optional(),
});
type FinalEventPayload = z.infer<typeof FinalEventPayload>;

const thisAcceptedRun = (orgId: string, runId: string) => and(eq(workloadRuns.orgId, orgId), eq(workloadRuns.id, runId), eq(workloadRuns.state, "accepted"));

/** Ends an accepted run when the sender holds its lease or nothing holds it. */
const apply = (tx: Tx, orgId: string, runId: string, leaseId: string | null, state: "finished" | "cancelled", eventId: string) =>
  tx
    .update(workloadRuns)
    .set({ state, endedAt: sql`now()`, endEventId: eventId, leaseExpiresAt: null })
    .where(and(thisAcceptedRun(orgId, runId), or(sql`${workloadRuns.leaseId} = ${leaseId}`, lte(workloadRuns.leaseExpiresAt, sql`now()`))))
    .returning({ id: workloadRuns.id });

// The sender presented a lease it once held: record that the first engine tried to end the run.
const markLost = (tx: Tx, orgId: string, runId: string, leaseId: string) =>
  tx
    .update(workloadRuns)
    .set({ lostHolderTriedToEnd: true })
    .where(and(thisAcceptedRun(orgId, runId), sql`${leaseId}::uuid = ANY (${workloadRuns.leaseIds})`, ne(workloadRuns.leaseId, leaseId)))
    .returning({ id: workloadRuns.id });

/**
 * The store step of both final event types, in batch order (of two final events of one run, the
 * first applies): each ends the run it names in the state its type names (workload.finished ->
 * finished), when it may.
 */
export const endWorkloadRuns: StoreStep = async (tx, orgId, events) => {
  const notes = new Map<number, string>();
  for (const { position, event } of events) {
    const state = event.type.slice("workload.".length) as "finished" | "cancelled";
    const { runId, leaseId = null } = event.payload as FinalEventPayload;
    const applied = await apply(tx, orgId, runId, leaseId, state, event.id);
    if (applied.length > 0) {
      notes.set(position, `Workload run ${runId} is now ${state}; workload events change no environment.`);
      continue;
    }
    const lost = leaseId ? await markLost(tx, orgId, runId, leaseId) : [];
    notes.set(
      position,
      lost.length > 0
        ? `This engine no longer holds workload run ${runId}: another engine took it over, so the run is unchanged; the event is stored whole.`
        : await whyNotApplied(tx, orgId, runId),
    );
  }
  return notes;
};

async function whyNotApplied(tx: Tx, orgId: string, runId: string): Promise<string> {
  const [run] = await tx
    .select({ state: workloadRuns.state })
    .from(workloadRuns)
    .where(and(eq(workloadRuns.orgId, orgId), eq(workloadRuns.id, runId)));
  if (!run) return `No workload run ${runId} exists in this organization; the event is stored and changes nothing.`;
  if (run.state === "accepted") {
    return `The event does not carry the lease that holds workload run ${runId}, so the run is unchanged; the event is stored whole.`;
  }
  return `Workload run ${runId} is ${run.state}, so the event changes nothing; it is stored whole.`;
}

/** The final workload events' types (worker/events/event-type.ts): each ends its run in the batch's transaction. */
export const WORKLOAD_EVENT_TYPES: Readonly<Record<string, EventType>> = {
  "workload.finished": { payload: FinalEventPayload, stores: [endWorkloadRuns], live: "workloads" },
  "workload.cancelled": { payload: FinalEventPayload, stores: [endWorkloadRuns], live: "workloads" },
};
