// Inbound event types (spec: Events): what each type means to this service, in one table that
// validation, storing and projection read. The capabilities that act on a type declare it (records:
// worker/records/event-types.ts; final workload events: worker/workloads/finals.ts) and the composition
// root puts their declarations in one table (worker/event-types.ts); `environment.*` is this
// capability's own, projected through the environment's object. Every event, of a type listed or not,
// is stored in `events`; a type not listed is accepted, stored and projects nothing, so newer engines
// can send newer types.
import type * as z from "zod";
import { ENVIRONMENT_STATES } from "../../db/enums";
import type { LiveTopic } from "../shared/live";
import { EnvironmentPayload } from "../environments";
import type { StoreStep } from "./store";

/** What a type means: its payload, and either what writes it beside its `events` row or where it projects. */
export type EventType = {
  /** The payload an event of the type must carry; one that breaks it is rejected alone, with a reason. */
  payload: z.ZodType;
} & (
  | {
      /**
       * What else writes it, in the transaction that stores the batch, for the events this batch
       * stored; their notes are the events' notes. A step several types name runs once for all of
       * them, in the order the batch first names it.
       */
      stores: readonly [StoreStep, ...StoreStep[]];
      /** What the console's live channel tells open pages once the batch committed (the environment's object tells its own). */
      live: LiveTopic;
    }
  | {
      /**
       * Projected onto the environment its envId names, through that environment's object once the
       * store committed; duplicates too (projection is idempotent, and a retry finishes what an
       * earlier attempt stored but never projected).
       */
      projects: "environment";
    }
);

const ENVIRONMENT: EventType = { payload: EnvironmentPayload, projects: "environment" };

/** The table of every type this service knows, and how a type is looked up in it. */
export interface EventTypes {
  readonly table: Readonly<Record<string, EventType>>;
  /**
   * What `type` means here; undefined for a type this service does not know. An environment.* type the
   * table does not list (a state a newer engine reports) is still held to the environment payload and
   * sent to its environment, whose projection notes the state it does not know.
   */
  find: (type: string) => EventType | undefined;
}

/** The environment's types and those the capabilities declare, in one table. */
export function eventTypes(...declared: ReadonlyArray<Readonly<Record<string, EventType>>>): EventTypes {
  const table: Record<string, EventType> = Object.fromEntries(ENVIRONMENT_STATES.map((state) => [`environment.${state}`, ENVIRONMENT]));
  for (const types of declared) Object.assign(table, types);
  return { table, find: (type) => (Object.hasOwn(table, type) ? table[type] : type.startsWith("environment.") ? ENVIRONMENT : undefined) };
}
