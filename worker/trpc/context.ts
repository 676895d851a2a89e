// What every procedure sees: the database, configuration, the session cookie (resolved by the
// signedIn middleware in its authorization transaction) and the CSRF header.
import type { Connection, Scope, Tx } from "../../db/transaction";
import type { Config } from "../config/types";
import type { Env } from "../env";
import type { AppContext } from "../http/context";
import { readSessionCookie } from "../sessions/cookie";
import { CSRF_HEADER } from "../sessions/csrf";
import { readOperatorCookie } from "../operators/sessions";

export interface RpcContext {
  connect: () => Promise<Connection>;
  config: Config;
  env: Env;
  /** The svc_session cookie's value, if any. */
  sessionToken: string | null;
  csrfHeader: string | undefined;
  requestId: string;
  /** The public origin, for links in what procedures send (invitations). */
  origin: string;
  /** The svc_operator_session cookie's value, if any (the operator portal's admin.* procedures). */
  operatorToken: string | null;
  /** Work that may finish after the answer (ending the operator pool, recording a failure). */
  waitUntil: (work: Promise<unknown>) => void;
  /** A caller that is no browser (worker/mcp's tool calls); when set, the session cookie is not read. */
  bearer?: RpcBearer;
}

/**
 * A credential that acts for one person in one organization (a model-context-protocol access token).
 * `key` names the lookups every transaction of the call carries (so row-level security shows the
 * credential) and how to find the live credential in one; null when it is unknown, expired or revoked.
 */
export interface RpcBearer {
  key: () => Promise<{
    lookups: NonNullable<Scope["lookups"]>;
    find: (tx: Tx) => Promise<{ personId: string; orgId: string; credentialId: string } | null>;
  }>;
}

export function rpcContext(c: AppContext): RpcContext {
  return {
    connect: c.var.database().connect,
    config: c.var.config,
    env: c.env,
    sessionToken: readSessionCookie(c) ?? null,
    csrfHeader: c.req.header(CSRF_HEADER),
    requestId: c.var.requestId,
    origin: c.var.config.server.appBaseUrl ?? new URL(c.req.url).origin,
    operatorToken: readOperatorCookie(c),
    waitUntil: (work) => c.executionCtx.waitUntil(work),
  };
}
