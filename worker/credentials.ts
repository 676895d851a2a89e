// How each security scheme a route declares (worker/openapi/declaration.ts) knows its caller, from the
// capabilities that own the credentials: engine and CLI tokens (auth), the commit credential
// (pr-checks) and the browser session (sessions). Composition: appBase sets it on every request.
import { admittedEngineToken, asCliToken } from "./auth/bearer";
import { carriesBearer, type CredentialChecks } from "./openapi/declaration";
import { findCredential, presentedCredential } from "./pr-checks/report";
import { readSessionCookie } from "./sessions/cookie";
import { authenticateSession } from "./sessions/middleware";

const nothing = async () => undefined;

export const CREDENTIALS: CredentialChecks = {
  engineToken: { carried: carriesBearer, check: (c, declared) => admittedEngineToken(c, { allowSuspended: declared.allowSuspended === true }) },
  cliToken: { carried: carriesBearer, check: (c, declared) => asCliToken(c, declared.permission ?? null, nothing) },
  commitCredential: { carried: carriesBearer, check: (c) => findCredential(c.var.database().connect, presentedCredential(c)) },
  session: { carried: (c) => readSessionCookie(c) !== null, check: authenticateSession },
};
