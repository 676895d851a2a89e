// The front door of worker/mcp/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { revokeGrantsOf, revokeOrganizationGrants } from "./grants";
