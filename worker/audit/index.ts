// The front door of worker/audit/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { STORED_TIME, appendAudit } from "./append";
export { streamAuditExport } from "./export";
