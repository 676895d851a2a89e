// Sessions: only a hash of the cookie value is stored. A session lives until 12 hours without use,
// 30 days since creation, or sign-out (effective on its next request); removing a member signs
// them out in the same transaction (worker/members).
import { inTransaction, type Connection, type Tx } from "../../db/transaction";
import { hashToken, newTokenValue } from "../tokens/secret";
import { appendAudit } from "../audit/append";
import { personContext } from "../people/store";

export const IDLE_HOURS = 12;
export const LIFETIME_DAYS = 30;

/** The one definition of a live session, as SQL over the `sessions` row aliased `s`. */
export const LIVE_SESSION = `s.signed_out_at IS NULL AND s.last_seen_at > now() - make_interval(hours => ${IDLE_HOURS})
  AND s.created_at > now() - make_interval(days => ${LIFETIME_DAYS})`;

export interface LiveSession {
  id: string;
  personId: string;
  token: string;
}

export async function createSession(tx: Tx, personId: string, client: { address: string | null; userAgent: string | null }): Promise<string> {
  const token = newTokenValue("session");
  await tx.sql.query("INSERT INTO sessions (person_id, token_hash, client_address, user_agent) VALUES ($1, $2, $3, $4)", [
    personId,
    await hashToken(token),
    client.address,
    client.userAgent?.slice(0, 300) ?? null,
  ]);
  return token;
}

// last_seen_at moves at most once a minute: the idle limit is kept to the minute without a write per request.
const RESOLVE = `
WITH live AS (
  SELECT s.id, s.person_id, s.last_seen_at FROM sessions s WHERE s.token_hash = $1 AND ${LIVE_SESSION}
), touched AS (
  UPDATE sessions SET last_seen_at = now()
  WHERE id = (SELECT id FROM live) AND last_seen_at < now() - interval '1 minute'
)
SELECT id, person_id FROM live`;

/** The live session behind `token`, in a transaction that holds its hash as the `session_hash` lookup. */
export async function findLiveSession(tx: Tx, token: string, tokenHash: string): Promise<LiveSession | null> {
  const { rows } = await tx.sql.query<{ id: string; person_id: string }>(RESOLVE, [tokenHash]);
  return rows[0] ? { id: rows[0].id, personId: rows[0].person_id, token } : null;
}

export async function resolveSession(connect: () => Promise<Connection>, token: string): Promise<LiveSession | null> {
  const tokenHash = await hashToken(token);
  return inTransaction(connect, { lookups: { session_hash: tokenHash } }, (tx) => findLiveSession(tx, token, tokenHash));
}

export async function signOut(tx: Tx, sessionId: string): Promise<void> {
  await tx.sql.query("UPDATE sessions SET signed_out_at = now() WHERE id = $1 AND signed_out_at IS NULL", [sessionId]);
}

/** Signs a person out everywhere (removal from an organization, account closing). */
export async function signOutEverywhere(tx: Tx, personId: string): Promise<number> {
  const { rowCount } = await tx.sql.query("UPDATE sessions SET signed_out_at = now() WHERE person_id = $1 AND signed_out_at IS NULL", [personId]);
  return rowCount ?? 0;
}

/** A person's live sessions, newest first; never a token or a hash. */
export async function listSessions(tx: Tx, personId: string, currentId: string) {
  const { rows } = await tx.sql.query<{ id: string; created_at: Date; last_seen_at: Date; client_address: string | null; user_agent: string | null }>(
    `SELECT s.id, s.created_at, s.last_seen_at, s.client_address, s.user_agent FROM sessions s
     WHERE s.person_id = $1 AND ${LIVE_SESSION} ORDER BY s.created_at DESC`,
    [personId],
  );
  return rows.map((row) => ({
    id: row.id,
    createdAt: row.created_at.toISOString(),
    lastSeenAt: row.last_seen_at.toISOString(),
    clientAddress: row.client_address,
    userAgent: row.user_agent,
    current: row.id === currentId,
  }));
}

// Starting a session for a person who just proved who they are (code host or magic link), with a
// sign-in entry, carrying the client's address, in the audit log of each of their organizations.
export interface Client {
  address: string | null;
  userAgent: string | null;
}

export async function beginSession(connect: () => Promise<Connection>, person: { id: string; label: string }, client: Client, method: string): Promise<string> {
  const token = await inTransaction(connect, { lookups: { person_id: person.id } }, (tx) => createSession(tx, person.id, client));
  for (const org of (await personContext(connect, person.id)).organizations) {
    await inTransaction(connect, { orgId: org.id }, (tx) =>
      appendAudit(tx, {
        orgId: org.id,
        action: "session.signed_in",
        actorPersonId: person.id,
        actorLabel: person.label,
        data: { method, clientAddress: client.address },
      }),
    );
  }
  return token;
}
