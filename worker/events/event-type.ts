// Inbound event types (spec: Events): what each type means to this service, in one table that
// validation, storing and projection read. The capabilities that act on a type declare it (records:
// worker/records/event-types.ts; final workload events: worker/workloads/finals.ts; `environment.*`:
// worker/environments) and the composition root puts their declarations in one table
// (worker/known-event-types.ts). Every event, of a type listed or not, is stored in `events`; a type not
// listed is accepted, stored and projects nothing, so newer engines can send newer types.
import type * as z from "zod";
import type { LiveTopic } from "../shared/live";
import type { StoreStep } from "./store";

/** What a type means: its payload, and what writes it beside its `events` row. */
export interface EventType {
  /** The payload an event of the type must carry; one that breaks it is rejected alone, with a reason. */
  payload: z.ZodType;
  /**
   * What else writes it, in the transaction that stores the batch, for the events this batch stored;
   * their notes are the events' notes. A step several types name runs once for all of them; the steps
   * run in the order the table first names them, the same for every batch, so that two batches lock
   * what they write in one order.
   */
  stores: readonly [StoreStep, ...StoreStep[]];
  /** What the console's live channel tells open pages once the batch committed. */
  live: LiveTopic;
}

/** The table of every type this service knows, and how a type is looked up in it. */
export interface EventTypes {
  readonly table: Readonly<Record<string, EventType>>;
  /**
   * What `type` means here; undefined for a type this service does not know. A family's entry
   * (`environment.*`) means every type of the family the table does not list by name: a state a newer
   * engine reports is still held to the environment payload and projected, whose rules note the state
   * they do not know.
   */
  find: (type: string) => EventType | undefined;
  /** Every store step the table names, in the order it first names them. */
  readonly steps: readonly StoreStep[];
}

/** The capabilities' declarations in one table. */
export function eventTypes(...declared: ReadonlyArray<Readonly<Record<string, EventType>>>): EventTypes {
  const table: Record<string, EventType> = Object.assign({}, ...declared);
  // Each family's entry by its prefix (`environment.`), read without building a key for every event.
  const families = Object.entries(table).flatMap(([key, type]) => (key.endsWith(".*") ? [[key.slice(0, -1), type] as const] : []));
  const find = (type: string) => (Object.hasOwn(table, type) ? table[type] : families.find(([prefix]) => type.startsWith(prefix))?.[1]);
  return { table, find, steps: [...new Set(Object.values(table).flatMap((type) => type.stores))] };
}
