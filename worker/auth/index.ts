// The front door of worker/auth/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { Denied, authorize, effectiveScopes } from "./authorize";
export type { Grant } from "./authorize";
export {
  admitFound,
  admittedEngineToken,
  admittingScope,
  asCliToken,
  asEngineToken,
  asEngineTokenAtOnce,
  asEngineTokenStatement,
  asProxyCaller,
  authenticateProxyCaller,
  identifyToken,
  organizationSuspended,
} from "./bearer";
export type { Admission, Principal } from "./bearer";
export { PERMISSION_WORDS } from "./permission-words";
export { forgetTokenOrg } from "./token-orgs";
