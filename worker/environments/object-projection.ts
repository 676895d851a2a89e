// A projection as the environment's object runs it (durable-objects/environment.ts holds the
// connections, the alarm and the order of calls): batches that arrived together merged into one list,
// applied in one transaction that opens with the environment's row locked, a teardown confirmed by the
// engine's own destruction event, and the row's upsert sent with the COMMIT, so a projection is two
// round trips. The rules live here, beside the projection itself.
import type { EndingWork, Scope } from "../../db/transaction";
import { confirmTeardowns } from "../commands";
import type { ProjectionEvent } from "./projection";
import { lockedEnvironment, lockedFrom, projectOntoEnvironment } from "./store";

/** A projection's transaction opens with the environment's row locked and its next deadline. */
export const projectionScope = (envId: string): Omit<Scope, "orgId"> => ({ first: lockedEnvironment(envId) });

export interface Projected {
  /** By the merged list's ref: why an event changed nothing. */
  notes: Map<number, string>;
  /** A console may be watching the organization: a change is worth telling. */
  watched: boolean;
  /** The environment's earliest workload deadline (epoch ms), for the object's alarm; null for none. */
  nextDeadline: number | null;
}

/** The projection's work in that transaction. */
export function projectionWork(orgId: string, envId: string, events: readonly ProjectionEvent[]): EndingWork<Projected> {
  return async (tx, first) => {
    const locked = lockedFrom(first);
    const { notes, upsert } = projectOntoEnvironment(envId, events, locked);
    if (events.some((event) => event.type === "environment.torn_down")) await confirmTeardowns(tx, orgId, envId);
    return { last: upsert ?? undefined, result: () => ({ notes, watched: locked.watched, nextDeadline: locked.next_deadline?.getTime() ?? null }) };
  };
}

/**
 * Batches of one environment as one list with refs of its own (two concurrent batches have no order
 * of their own, so they are applied as one batch's events are), and each note given back to its batch
 * under the batch's own ref.
 */
export function mergeBatches(batches: ReadonlyArray<readonly ProjectionEvent[]>) {
  const owners: Array<{ batch: number; ref: number }> = [];
  const events = batches.flatMap((batch, index) => batch.map((event) => ({ ...event, ref: owners.push({ batch: index, ref: event.ref }) - 1 })));
  const answer = (notes: ReadonlyMap<number, string>) => {
    const answers = batches.map((): Array<{ ref: number; note: string }> => []);
    for (const [ref, note] of notes) answers[owners[ref]!.batch]!.push({ ref: owners[ref]!.ref, note });
    return answers;
  };
  return { events, answer };
}
