// Final workload events (workload.finished, workload.cancelled) arriving through POST /v1/events
// (spec: Events rule 5). Applied when the sender holds the run (its lease is the current one) or
// nothing holds it (the lease expired); otherwise the event is stored whole, the run is unchanged,
// and the outcome says why in a sentence.
import * as z from "zod";
import type { Tx } from "../../db/transaction";
import type { StoreStep } from "../events/store";

/** The payload a final event must carry: which run, and the lease the sender holds. */
export const FinalEventPayload = z.looseObject({
  runId: z.uuid(),
  leaseId: z.uuid().optional(),
});
type FinalEventPayload = z.infer<typeof FinalEventPayload>;

const APPLY = `
UPDATE workload_runs SET state = $4, ended_at = now(), end_event_id = $5, lease_expires_at = NULL
WHERE org_id = $1 AND id = $2 AND state = 'accepted' AND (lease_id = $3 OR lease_expires_at <= now())
RETURNING id`;

// The sender presented a lease it once held: record that the first engine tried to end the run.
const LOST = `
UPDATE workload_runs SET lost_holder_tried_to_end = true
WHERE org_id = $1 AND id = $2 AND state = 'accepted' AND $3::uuid = ANY (lease_ids) AND lease_id <> $3
RETURNING id`;

/**
 * The store step of both final event types, in batch order (of two final events of one run, the
 * first applies): each ends the run it names in the state its type names (workload.finished ->
 * finished), when it may.
 */
export const endWorkloadRuns: StoreStep = async (tx, orgId, events) => {
  const notes = new Map<number, string>();
  for (const { position, event } of events) {
    const state = event.type.slice("workload.".length);
    const { runId, leaseId = null } = event.payload as FinalEventPayload;
    const applied = await tx.sql.query(APPLY, [orgId, runId, leaseId, state, event.id]);
    if (applied.rows.length > 0) {
      notes.set(position, `Workload run ${runId} is now ${state}; workload events change no environment.`);
      continue;
    }
    const lost = leaseId ? await tx.sql.query(LOST, [orgId, runId, leaseId]) : { rows: [] };
    notes.set(
      position,
      lost.rows.length > 0
        ? `This engine no longer holds workload run ${runId}: another engine took it over, so the run is unchanged; the event is stored whole.`
        : await whyNotApplied(tx, orgId, runId),
    );
  }
  return notes;
};

async function whyNotApplied(tx: Tx, orgId: string, runId: string): Promise<string> {
  const { rows } = await tx.sql.query<{ state: string }>("SELECT state FROM workload_runs WHERE org_id = $1 AND id = $2", [orgId, runId]);
  const run = rows[0];
  if (!run) return `No workload run ${runId} exists in this organization; the event is stored and changes nothing.`;
  if (run.state === "accepted") {
    return `The event does not carry the lease that holds workload run ${runId}, so the run is unchanged; the event is stored whole.`;
  }
  return `Workload run ${runId} is ${run.state}, so the event changes nothing; it is stored whole.`;
}
