// The front door of worker/analytics/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { sendAfterResponse } from "./client";
export { operatingOrganization } from "./operating";
