// Who may use the operator portal, decided the same way for /admin and /rpc/admin.*: the portal is
// off (503, naming SVC_ADMIN_DATABASE_URL) unless the operator role's URL is set; a live operator
// session passes; a customer session is refused (403); no session, 401. Every read of the portal runs
// as the operator role, through a pool of SVC_ADMIN_POOL_MAX opened for the request.
import { openPool, type RequestPool } from "../../db/neon";
import { inTransaction, type Connection } from "../../db/transaction";
import type { Config } from "../config/types";
import { resolveSession } from "../sessions";
import { findOperatorSession, type OperatorSession } from "./sessions";

export const PORTAL_OFF = "The operator portal is off: SVC_ADMIN_DATABASE_URL is not set. Set it to the operator role's connection string to serve /admin.";
export const SIGN_IN_AS_OPERATOR = "Sign in to the operator portal at /admin first.";
export const CUSTOMER_SESSION = "This is the operator portal: a customer session cannot use it. Sign in at /admin with an operator login.";

export type PortalRefusal = "off" | "customer" | "none";

/** The operator role's pool for this request, or null when the portal is off. End it once the request is done. */
export function openAdminPool(config: Config): RequestPool | null {
  const url = config.database.adminUrl;
  return url ? openPool(url, "svc_operator", config.database.adminPoolMax) : null;
}

export interface OperatorCall {
  session: OperatorSession;
}

/** The operator behind the request's cookies, or why not. */
export async function identifyOperator(
  adminPool: RequestPool | null,
  tokens: { operator: string | null; customer: string | null },
  appConnect: () => Promise<Connection>,
): Promise<OperatorCall | PortalRefusal> {
  if (!adminPool) return "off";
  if (tokens.operator) {
    const operatorToken = tokens.operator;
    const session = await inTransaction(adminPool.connect, {}, (tx) => findOperatorSession(tx, operatorToken));
    if (session) return { session };
  }
  if (tokens.customer && (await resolveSession(appConnect, tokens.customer))) return "customer";
  return "none";
}
