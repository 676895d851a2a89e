// The front door of worker/organizations/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { findOrganizationId, freeSlugFor, insertOrganization } from "./store";
