// Every inbound event type this service knows, composed from the capabilities that declare them
// (worker/events/types.ts says what a type is); ingestion reads this one table.
import { eventTypes } from "./events/types";
import { RECORD_EVENT_TYPES } from "./records/event-types";
import { WORKLOAD_EVENT_TYPES } from "./workloads/finals";

export const EVENT_TYPES = eventTypes(RECORD_EVENT_TYPES, WORKLOAD_EVENT_TYPES);
