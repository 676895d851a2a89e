// What every procedure sees: the database, configuration, the session (if any) and the CSRF header.
import type { Connection } from "../../db/transaction";
import type { Config } from "../config/types";
import type { Env } from "../env";
import type { AppContext } from "../http/context";
import { readSessionCookie } from "../sessions/cookie";
import { CSRF_HEADER } from "../sessions/csrf";
import { resolveSession, type LiveSession } from "../sessions/store";

export interface RpcContext {
  connect: () => Promise<Connection>;
  config: Config;
  env: Env;
  session: LiveSession | null;
  csrfHeader: string | undefined;
  requestId: string;
  /** The public origin, for links in what procedures send (invitations). */
  origin: string;
}

export async function rpcContext(c: AppContext): Promise<RpcContext> {
  const connect = c.var.database().connect;
  const token = readSessionCookie(c);
  return {
    connect,
    config: c.var.config,
    env: c.env,
    session: token ? await resolveSession(connect, token) : null,
    csrfHeader: c.req.header(CSRF_HEADER),
    requestId: c.var.requestId,
    origin: c.var.config.server.appBaseUrl ?? new URL(c.req.url).origin,
  };
}
