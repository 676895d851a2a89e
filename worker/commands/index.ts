// The front door of worker/commands/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { confirmTeardowns, enqueueCommand } from "./enqueue";
