// The front door of worker/providers/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { budgetSummaries } from "./budgets";
export { DIALECTS } from "./dialects";
export { costMicros } from "./proxy";
export { callProvider, messagesStreamUsage, readToEnd, sseReader } from "./usage";
export type { Usage } from "./usage";
