// One batch from an engine: validate each event, store the valid ones idempotently and, in the same
// transaction, run the store steps their types name (the environment projection among them).
import type { Tx } from "../../db/transaction";
import type { LiveChange } from "../shared/live";
import type { IngestedEvent, IngestResult, Outcome } from "./schemas";
import { storeEvents, type StoredEvent, type StoreStep } from "./store";
import type { EventType, EventTypes } from "./event-type";
import { checkEvent } from "./validate";

interface Valid {
  position: number;
  event: IngestedEvent;
  /** What its type means, looked up once (undefined: a type this service does not know). */
  type: EventType | undefined;
}

/** A batch validated, event by event: the outcomes of the rejected, and the valid events to store. */
export interface CheckedBatch {
  outcomes: Outcome[];
  valid: Valid[];
  /** What each type means (worker/known-event-types.ts). */
  types: EventTypes;
}

/** A batch stored (its types' store steps applied) in the caller's transaction, waiting to be answered. */
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
    if (checked.ok) valid.push({ position, event: checked.event, type: checked.type });
    else outcomes[position] = { id: checked.id, status: "rejected", reason: checked.reason };
  });
  return { outcomes, valid, types };
}

/**
 * The insert of the batch's valid events, idempotent (a statement that stores nothing unless the
 * transaction admitted the caller's token: worker/auth/bearer.ts, withEngineToken), and how its
 * answer reads: which of them it stored.
 */
export const batchInsert = ({ valid }: CheckedBatch) => storeEvents(valid.map((v) => v.event));

/** The store steps the stored events' types name, each with its events, in the table's order (EventTypes.steps). */
function storeStepsOf({ valid, types }: CheckedBatch, stored: Set<number>): Map<StoreStep, StoredEvent[]> {
  // Each store step once, over the stored events of every type that names it (set-based, not per event).
  const named = new Map<StoreStep, StoredEvent[]>();
  valid.forEach(({ position, event, type }, i) => {
    if (!stored.has(i) || !type) return;
    for (const step of type.stores) (named.get(step) ?? named.set(step, []).get(step)!).push({ position, event });
  });
  return new Map(types.steps.filter((step) => named.has(step)).map((step) => [step, named.get(step)!]));
}

/**
 * Whether any valid event's type names a store step: its transaction then needs the insert's answer
 * before it commits; without, the insert is its only work, and it goes in one round trip.
 */
export const mayStore = ({ valid }: CheckedBatch): boolean => valid.some(({ type }) => type !== undefined);

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

/** The batch's answer: each event's outcome, and the notes of those accepted that changed nothing. */
export function answerBatch({ outcomes, valid, stored, storeNotes }: StoredBatch): IngestResult {
  let unprojected = 0;
  valid.forEach(({ position, event, type }, i) => {
    const outcome: Outcome = { id: event.id, status: stored.has(i) ? "accepted" : "duplicate" };
    outcomes[position] = outcome;
    if (outcome.status !== "accepted") return;
    const note = type ? storeNotes.get(position) : `${event.type} is not a type this service knows; it is stored and projects nothing.`;
    if (note) {
      outcome.note = note;
      unprojected += 1;
    }
  });
  const count = (status: Outcome["status"]) => outcomes.filter((outcome) => outcome.status === status).length;
  return { accepted: count("accepted"), duplicates: count("duplicate"), rejected: count("rejected"), unprojected, outcomes };
}

/** What the stored events changed, for the console's live channel: their types' topics, by environment. */
export function liveChangesOf({ valid, stored }: StoredBatch): LiveChange[] {
  const changes = new Map<string, LiveChange>();
  valid.forEach(({ event, type }, i) => {
    if (!stored.has(i) || !type) return;
    changes.set(`${type.live}/${event.envId ?? ""}`, { topic: type.live, ...(event.envId ? { envId: event.envId } : {}) });
  });
  return [...changes.values()];
}
