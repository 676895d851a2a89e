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

/** A batch validated, event by event: the outcomes of the rejected, and the valid events to store. */
export interface CheckedBatch {
  outcomes: Outcome[];
  valid: Valid[];
  /** What each type means (worker/event-types.ts). */
  types: EventTypes;
}

/** A batch stored (its types' store steps applied) in the caller's transaction, waiting to be projected. */
export interface StoredBatch extends CheckedBatch {
  stored: Set<number>;
  /** The store steps' notes, by batch position. */
  storeNotes: Map<number, string>;
}

/** Validates each event: a rejected one is answered and stored by nobody; the rest are stored. */
export function checkBatch(raw: readonly unknown[], now: number, types: EventTypes): CheckedBatch {
  const outcomes: Outcome[] = new Array(raw.length);
  const valid: Valid[] = [];
  raw.forEach((item, position) => {
    const checked = checkEvent(item, position, now, types);
    if (checked.ok) valid.push({ position, event: checked.event, at: checked.at });
    else outcomes[position] = { id: checked.id, status: "rejected", reason: checked.reason };
  });
  return { outcomes, valid, types };
}

/**
 * The insert of the batch's valid events, idempotent (a statement that stores nothing unless the
 * transaction admitted the caller's token: worker/auth/bearer.ts, asEngineTokenStatement), and how its
 * answer reads: which of them it stored.
 */
export const batchInsert = ({ valid }: CheckedBatch) => storeEvents(valid.map((v) => v.event));

/** The store steps the stored events' types name (final workload events, engine records), each with its events. */
function storeStepsOf({ valid, types }: CheckedBatch, stored: Set<number>): Map<StoreStep, StoredEvent[]> {
  // Each store step once, over the stored events of every type that names it (set-based, not per event).
  const steps = new Map<StoreStep, StoredEvent[]>();
  valid.forEach(({ position, event }, i) => {
    const type = types.find(event.type);
    if (!stored.has(i) || !type || !("stores" in type)) return;
    for (const step of type.stores) (steps.get(step) ?? steps.set(step, []).get(step)!).push({ position, event });
  });
  return steps;
}

/**
 * Whether any valid event's type names a store step: its transaction then needs the insert's answer
 * before it commits; without, the insert is its only work, and it goes in one round trip.
 */
export const mayStore = ({ valid, types }: CheckedBatch): boolean =>
  valid.some(({ event }) => {
    const type = types.find(event.type);
    return type !== undefined && "stores" in type;
  });

/**
 * Runs the store steps over the events the insert stored, in its transaction (acting as the
 * organization): an applied step is never lost, and a stored event goes through its steps exactly
 * once (a retry is a duplicate). Answers their notes by batch position.
 */
export async function applyStoreSteps(tx: Tx, orgId: string, checked: CheckedBatch, stored: Set<number>): Promise<Map<number, string>> {
  const storeNotes = new Map<number, string>();
  for (const [step, events] of storeStepsOf(checked, stored)) for (const [position, note] of await step(tx, orgId, events)) storeNotes.set(position, note);
  return storeNotes;
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
