// The front door of worker/proposals/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { chooseRepository, currentFile, toProposal } from "./store";
export type { ProposalKind, ProposalRow } from "./store";
