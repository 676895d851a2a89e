// The front door of worker/members/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { endMembership } from "./remove";
export { keepLastOwner, onlyOwnerTouchesOwners } from "./role-rules";
export { syncMembershipsOnSignIn } from "./sync-on-signin";
