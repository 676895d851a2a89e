// The front door of worker/auth/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { Denied, authorize, effectiveScopes } from "./authorize";
export type { Grant } from "./authorize";
export {
  admittedEngineToken,
  asCliToken,
  asProxyCaller,
  authenticateProxyCaller,
  engineTokenAtOnce,
  identifyToken,
  organizationSuspended,
  presentedEngineToken,
  withEngineToken,
} from "./bearer";
export type { Admission, Principal } from "./bearer";
export { PERMISSION_WORDS } from "./permission-words";
export { forgetTokenOrg } from "./token-orgs";
