// The front door of worker/events/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { archiveFolder } from "./partitions/pass";
export type { IngestedEvent } from "./schemas";
export type { StoreStep, StoredEvent } from "./store";
export type { EventType } from "./event-type";
