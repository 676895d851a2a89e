// Browser routes outside /rpc that act on an organization (`/console/api/*`): the session, its CSRF
// header on a change, `authorize` and the plan gate, then the route's work, in one transaction, as
// console procedures do it.
import { inTransaction, type Tx } from "../../db/transaction";
import { addLookup } from "../../db/acting";
import { authorize, type Grant } from "../auth";
import type { Permission } from "../shared/permissions";
import { gateRoute } from "../http/plan-gate";
import type { AppContext } from "../http/context";
import { Refusal } from "../http/refusal";
import { hashToken } from "../http/hash";
import { readSessionCookie } from "./cookie";
import { checkCsrf, CSRF_HEADER, isMutation } from "./csrf";
import { findLiveSession } from "./store";
import type { LiveSession } from "../http/caller";

export async function asSessionMember<T>(
  c: AppContext,
  orgId: string,
  permission: Permission | null,
  work: (tx: Tx, grant: Grant, session: LiveSession) => Promise<T>,
): Promise<T> {
  const token = readSessionCookie(c);
  if (!token) throw new Refusal("unauthenticated", "Sign in first: this needs a browser session.");
  const sessionHash = await hashToken(token);
  return inTransaction(c.var.database().connect, { lookups: { session_hash: sessionHash } }, async (tx) => {
    const session = await findLiveSession(tx, token, sessionHash);
    if (!session) throw new Refusal("unauthenticated", "Sign in first: this needs a browser session.");
    if (isMutation(c.req.method)) await checkCsrf(session.token, c.req.header(CSRF_HEADER));
    await addLookup(tx, "person_id", session.personId);
    const grant = await authorize(tx, { kind: "session", personId: session.personId }, orgId, permission);
    gateRoute(c, grant.plan);
    return work(tx, grant, session);
  });
}
