// Operator sessions: their own cookie (svc_operator_session, `__Host-` prefixed when Secure like every
// cookie of ours, worker/sessions/cookie.ts), never the customer's svc_session, so
// neither kind of session ever stands for the other. Only a hash of the value is stored, in the
// operator role's database (SVC_ADMIN_DATABASE_URL). A session lives 1 hour without use and 12 hours
// at most: an operator reads every organization, so the window is kept short.
import { and, eq, isNull, sql } from "drizzle-orm";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { operatorSessions } from "../../db/schema/operators";
import type { Tx } from "../../db/transaction";
import type { AppContext } from "../http/context";
import { cookieAttributes, cookieName } from "../sessions";
import { base64url, hashToken } from "../http/hash";

export const OPERATOR_COOKIE = "svc_operator_session";
export const OPERATOR_IDLE_MINUTES = 60;
export const OPERATOR_LIFETIME_HOURS = 12;

const LIVE = sql`s.signed_out_at IS NULL AND s.last_seen_at > now() - make_interval(mins => ${OPERATOR_IDLE_MINUTES})
  AND s.created_at > now() - make_interval(hours => ${OPERATOR_LIFETIME_HOURS})`;

export interface OperatorSession {
  id: string;
  operatorId: string;
  login: string;
  token: string;
}

const attributes = (c: AppContext) => cookieAttributes(c, "Strict");

export const readOperatorCookie = (c: AppContext): string | null => getCookie(c, cookieName(c, OPERATOR_COOKIE)) ?? null;
export const writeOperatorCookie = (c: AppContext, token: string) =>
  setCookie(c, cookieName(c, OPERATOR_COOKIE), token, { ...attributes(c), maxAge: OPERATOR_LIFETIME_HOURS * 3600 });
export const clearOperatorCookie = (c: AppContext) => deleteCookie(c, cookieName(c, OPERATOR_COOKIE), attributes(c));

/**
 * A new session for the operator. Sessions a day past their 12 hours (no cookie can present one then)
 * are deleted in the same transaction, with the client address each kept: operators sign in rarely and
 * only the operator role reaches this table, so a sign-in is where they go, as codehost deliveries are
 * pruned where they are written.
 */
export async function createOperatorSession(tx: Tx, operatorId: string, clientAddress: string | null): Promise<string> {
  const token = `svc_ops_${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
  await tx.delete(operatorSessions).where(sql`${operatorSessions.createdAt} < now() - make_interval(hours => ${OPERATOR_LIFETIME_HOURS + 24})`);
  await tx.insert(operatorSessions).values({ operatorId, tokenHash: await hashToken(token), clientAddress });
  return token;
}

/** The live session behind `token` (its last use moved forward at most once a minute). */
export async function findOperatorSession(tx: Tx, token: string): Promise<OperatorSession | null> {
  const { rows } = await tx.execute<{ id: string; operator_id: string; login: string }>(
    sql`WITH live AS (
       SELECT s.id, s.operator_id, s.last_seen_at FROM operator_sessions s WHERE s.token_hash = ${await hashToken(token)} AND ${LIVE}
     ), touched AS (
       UPDATE operator_sessions SET last_seen_at = now() WHERE id = (SELECT id FROM live) AND last_seen_at < now() - interval '1 minute'
     )
     SELECT live.id, live.operator_id, o.login FROM live JOIN operators o ON o.id = live.operator_id`,
  );
  const row = rows[0];
  return row ? { id: row.id, operatorId: row.operator_id, login: row.login, token } : null;
}

export async function endOperatorSession(tx: Tx, sessionId: string): Promise<void> {
  await tx
    .update(operatorSessions)
    .set({ signedOutAt: sql`now()` })
    .where(and(eq(operatorSessions.id, sessionId), isNull(operatorSessions.signedOutAt)));
}
