// The front door of worker/people/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { personContext, personForEmail, readPersonContext, upsertCodehostPerson } from "./store";
