// One batch from an engine: validate each event, store the valid ones idempotently, then project
// environment events through each environment's Durable Object (one call per environment per batch).
import { askEnvironment, environmentObject } from "../objects";
import type { Tx } from "../../db/transaction";
import type { Env } from "../env";
import type { LiveChange } from "../shared/live";
import type { ProjectionEvent } from "../environments";
import type { IngestedEvent, IngestResult, Outcome } from "./schemas";
import type { EnvironmentPayload } from "../environments";
import { storeEvents, type StoredEvent, type StoreStep } from "./store";
import type { EventTypes } from "./types";
import { checkEvent } from "./validate";

interface Valid {
  position: number;
  event: IngestedEvent;
  at: number;
}

/** A batch stored (its types' store steps applied) in the caller's transaction, waiting to be projected. */
export interface StoredBatch {
  outcomes: Outcome[];
  valid: Valid[];
  stored: Set<number>;
  /** The store steps' notes, by batch position. */
  storeNotes: Map<number, string>;
  /** What each type means (worker/event-types.ts). */
  types: EventTypes;
}

/**
 * Validates each event and, in `tx` (acting as the organization: the one that also found the
 * caller's token), stores the valid ones idempotently and runs their types' store steps (final
 * workload events, engine records): an applied step is never lost, and a stored event goes through
 * its steps exactly once (a retry is a duplicate).
 */
export async function storeBatch(tx: Tx, orgId: string, tokenId: string, raw: readonly unknown[], now: number, types: EventTypes): Promise<StoredBatch> {
  const outcomes: Outcome[] = new Array(raw.length);
  const valid: Valid[] = [];
  raw.forEach((item, position) => {
    const checked = checkEvent(item, position, now, types);
    if (checked.ok) valid.push({ position, event: checked.event, at: checked.at });
    else outcomes[position] = { id: checked.id, status: "rejected", reason: checked.reason };
  });
  const stored = await storeEvents(
    tx,
    orgId,
    tokenId,
    valid.map((v) => v.event),
  );
  // Each store step once, over the stored events of every type that names it (set-based, not per event).
  const steps = new Map<StoreStep, StoredEvent[]>();
  valid.forEach(({ position, event }, i) => {
    const type = types.find(event.type);
    if (!stored.has(i) || !type || !("stores" in type)) return;
    for (const step of type.stores) (steps.get(step) ?? steps.set(step, []).get(step)!).push({ position, event });
  });
  const storeNotes = new Map<number, string>();
  for (const [step, events] of steps) for (const [position, note] of await step(tx, orgId, events)) storeNotes.set(position, note);
  return { outcomes, valid, stored, storeNotes, types };
}

/** After the store committed: environment events through their objects, and the answer. */
export async function projectBatch(env: Env, orgId: string, { outcomes, valid, stored, storeNotes, types }: StoredBatch): Promise<IngestResult> {
  valid.forEach((v, i) => {
    outcomes[v.position] = { id: v.event.id, status: stored.has(i) ? "accepted" : "duplicate" };
  });

  const notes = await project(env, orgId, valid, types);
  for (const [ref, note] of storeNotes) notes.set(ref, note);
  let unprojected = 0;
  for (const v of valid) {
    const outcome = outcomes[v.position]!;
    if (outcome.status !== "accepted") continue;
    const note = notes.get(v.position);
    if (note) {
      outcome.note = note;
      unprojected += 1;
    }
  }
  const count = (status: Outcome["status"]) => outcomes.filter((outcome) => outcome.status === status).length;
  return { accepted: count("accepted"), duplicates: count("duplicate"), rejected: count("rejected"), unprojected, outcomes };
}

/** What the stored events changed, for the console's live channel: their types' topics, by environment. */
export function liveChangesOf({ valid, stored, types }: StoredBatch): LiveChange[] {
  const changes = new Map<string, LiveChange>();
  valid.forEach(({ event }, i) => {
    const type = types.find(event.type);
    if (!stored.has(i) || !type || !("live" in type)) return;
    changes.set(`${type.live}/${event.envId ?? ""}`, { topic: type.live, ...(event.envId ? { envId: event.envId } : {}) });
  });
  return [...changes.values()];
}

const PROJECTION_CONCURRENCY = 32;

/**
 * Notes by batch position for every event that changed no environment row. Duplicates are projected
 * again too: projection is idempotent, and it lets a retry finish a projection an earlier attempt
 * stored but never applied.
 */
async function project(env: Env, orgId: string, valid: readonly Valid[], types: EventTypes): Promise<Map<number, string>> {
  const notes = new Map<number, string>();
  const byEnvironment = new Map<string, ProjectionEvent[]>();
  for (const { position, event, at } of valid) {
    const type = types.find(event.type);
    if (!type) {
      notes.set(position, `${event.type} is not a type this service knows; it is stored and projects nothing.`);
    } else if (!("projects" in type)) {
    } else if (!event.envId) {
      notes.set(position, "The event names no envId, so it cannot project onto an environment.");
    } else {
      const list = byEnvironment.get(event.envId) ?? [];
      list.push({ ref: position, type: event.type, sequence: event.sequence ?? null, at, payload: (event.payload ?? {}) as EnvironmentPayload });
      byEnvironment.set(event.envId, list);
    }
  }
  // Each object works on connections of its own, kept between calls, so the objects of a batch work
  // side by side; the bound keeps a batch of many environments from waking hundreds at once. A
  // transient platform fault is retried once, through a fresh stub (a stub that failed may stay broken).
  await forEachLimited([...byEnvironment], PROJECTION_CONCURRENCY, async ([envId, events]) => {
    const projected = await askEnvironment(() => environmentObject(env, orgId, envId).project(orgId, envId, events));
    for (const { ref, note } of projected) notes.set(ref, note);
  });
  return notes;
}

// Bounded fan-out: each call may open its own connection or Durable Object request, so a large batch
// must not start them all at once.
/** Runs `work` for every item with at most `limit` calls in flight; rejects with the first failure. */
export async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
