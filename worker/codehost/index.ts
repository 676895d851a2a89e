// The front door of worker/codehost/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { accountMembers } from "./account-members";
export { appAccessTo, installationToken } from "./app-access";
export { appJwt } from "./app-jwt";
export { CodehostUnreachable, callCodehost, describeAnswer } from "./codehost-api";
export type { ApiAnswer } from "./codehost-api";
export { attemptDispatch, recordDispatch } from "./dispatch";
export { IdentityRefusal, NOT_BOUND_REASONS } from "./identity-refusal";
export { installationsOnAccount, ownInstallations, ownInstallationsNamed } from "./installations";
export type { InstallationOnAccount } from "./installations";
export { identityAudience } from "./issuer";
export { CLOCK_TOLERANCE_SECONDS, UNVERIFIED_REASONS } from "./oidc-verify";
export type { WorkflowIdentity } from "./oidc-verify";
export { CodehostListFailed } from "./paged";
export { authorizeUrl, exchangeCode, fetchAccount, fetchOrganizationRole, fetchOrganizations } from "./user-oauth";
export type { CodehostAccount, CodehostAccountRef } from "./user-oauth";
export { admitWorkflowIdentity, verifyWorkflowIdentity } from "./workflow-identity";
