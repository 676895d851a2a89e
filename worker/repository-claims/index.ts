// The front door of worker/repository-claims/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { admitIdentity, claimFor } from "./exchange";
export { IdentityUnverified } from "./exchange-routes";
export { listClaims } from "./store";
