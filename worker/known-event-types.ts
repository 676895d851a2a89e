// Every inbound event type this service knows, composed from the capabilities that declare them
// (worker/events/event-type.ts says what a type is); ingestion reads this one table. The environment's
// types come first: their projection's step then runs before the others in every batch
// (EventTypes.steps), and every batch locks environments before records and workload runs.
import { ENVIRONMENT_STATES } from "../db/enums";
import { EnvironmentPayload, projectEnvironments } from "./environments";
import { type EventType, eventTypes } from "./events/event-type";
import { RECORD_EVENT_TYPES } from "./records/event-types";
import { WORKLOAD_EVENT_TYPES } from "./workloads/finals";

/** `environment.<state>`, and `environment.*` for a state a newer engine reports: projected onto the environment's row. */
const ENVIRONMENT: EventType = { payload: EnvironmentPayload, stores: [projectEnvironments], live: "environments" };
const ENVIRONMENT_EVENT_TYPES = Object.fromEntries(
  [...ENVIRONMENT_STATES.map((state) => `environment.${state}`), "environment.*"].map((type) => [type, ENVIRONMENT]),
);

export const EVENT_TYPES = eventTypes(ENVIRONMENT_EVENT_TYPES, RECORD_EVENT_TYPES, WORKLOAD_EVENT_TYPES);
