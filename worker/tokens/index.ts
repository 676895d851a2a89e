// The front door of worker/tokens/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { issueToken } from "./issue";
export { revokeCliTokenByHash } from "./logout";
export { newTokenValue } from "./secret";
