// The front door of worker/records/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { RuntimeName } from "./payloads";
