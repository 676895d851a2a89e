// Sessions: only a hash of the cookie value is stored. A session lives until 12 hours without use,
// 30 days since creation, or sign-out (effective on its next request); removing a member signs
// them out in the same transaction (worker/members).
import type { LiveSession } from "../http/caller";
import { and, desc, eq, gt, isNull, sql } from "drizzle-orm";
import { addLookup } from "../../db/acting";
import { memberships } from "../../db/schema/organizations";
import { sessions } from "../../db/schema/people";
import { inTransaction, type Connection, type Tx } from "../../db/transaction";
import { newTokenValue } from "../tokens";
import { hashToken } from "../http/hash";
import { appendAudit } from "../audit";
import { personContext } from "../people";

export const IDLE_HOURS = 12;
export const LIFETIME_DAYS = 30;

/** The one definition of a live session, a condition over the `sessions` table (not aliased). */
export const LIVE_SESSION = and(
  isNull(sessions.signedOutAt),
  gt(sessions.lastSeenAt, sql`now() - make_interval(hours => ${IDLE_HOURS})`),
  gt(sessions.createdAt, sql`now() - make_interval(days => ${LIFETIME_DAYS})`),
)!;

export async function createSession(tx: Tx, personId: string, client: { address: string | null; userAgent: string | null }): Promise<string> {
  const token = newTokenValue("session");
  await tx
    .insert(sessions)
    .values({ personId, tokenHash: await hashToken(token), clientAddress: client.address, userAgent: client.userAgent?.slice(0, 300) ?? null });
  return token;
}

// last_seen_at moves at most once a minute: the idle limit is kept to the minute without a write per request.
const RESOLVE = (tokenHash: string) => sql`
WITH live AS (
  SELECT sessions.id, sessions.person_id, sessions.last_seen_at FROM ${sessions} WHERE sessions.token_hash = ${tokenHash} AND ${LIVE_SESSION}
), touched AS (
  UPDATE sessions SET last_seen_at = now()
  WHERE id = (SELECT id FROM live) AND last_seen_at < now() - interval '1 minute'
)
SELECT id, person_id FROM live`;

/** The live session behind `token`, in a transaction that holds its hash as the `session_hash` lookup. */
export async function findLiveSession(tx: Tx, token: string, tokenHash: string): Promise<LiveSession | null> {
  const { rows } = await tx.execute<{ id: string; person_id: string }>(RESOLVE(tokenHash));
  return rows[0] ? { id: rows[0].id, personId: rows[0].person_id, token } : null;
}

export async function resolveSession(connect: () => Promise<Connection>, token: string): Promise<LiveSession | null> {
  const tokenHash = await hashToken(token);
  return inTransaction(connect, { lookups: { session_hash: tokenHash } }, (tx) => findLiveSession(tx, token, tokenHash));
}

export async function signOut(tx: Tx, sessionId: string): Promise<void> {
  await tx
    .update(sessions)
    .set({ signedOutAt: sql`now()` })
    .where(and(eq(sessions.id, sessionId), isNull(sessions.signedOutAt)));
}

/** Every organization the person belongs to: where a live channel of theirs may be open (worker/live). */
export async function organizationsOf(tx: Tx, personId: string): Promise<string[]> {
  await addLookup(tx, "person_id", personId);
  const rows = await tx.select({ orgId: memberships.orgId }).from(memberships).where(eq(memberships.personId, personId));
  return rows.map((row) => row.orgId);
}

/**
 * Signs a person out everywhere (removal from an organization, account closing): how many sessions
 * ended, and the organizations whose live channels may hold them (read before a membership goes).
 */
export async function signOutEverywhere(tx: Tx, personId: string): Promise<{ ended: number; organizations: string[] }> {
  const { rowCount } = await tx
    .update(sessions)
    .set({ signedOutAt: sql`now()` })
    .where(and(eq(sessions.personId, personId), isNull(sessions.signedOutAt)));
  return { ended: rowCount ?? 0, organizations: await organizationsOf(tx, personId) };
}

/** A person's live sessions, newest first; never a token or a hash. */
export async function listSessions(tx: Tx, personId: string, currentId: string) {
  const rows = await tx
    .select({
      id: sessions.id,
      createdAt: sessions.createdAt,
      lastSeenAt: sessions.lastSeenAt,
      clientAddress: sessions.clientAddress,
      userAgent: sessions.userAgent,
    })
    .from(sessions)
    .where(and(eq(sessions.personId, personId), LIVE_SESSION))
    .orderBy(desc(sessions.createdAt));
  return rows.map((row) => ({
    id: row.id,
    createdAt: row.createdAt.toISOString(),
    lastSeenAt: row.lastSeenAt.toISOString(),
    clientAddress: row.clientAddress,
    userAgent: row.userAgent,
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
