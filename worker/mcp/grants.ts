// Grants: a person's consent for one client in one organization. Consent stores a single-use code
// (short lived, bound to the client, the redirect URI and the PKCE challenge); the token endpoint
// redeems it once for an opaque access token bound to the person, the organization and the client,
// and, for a client registered for the refresh_token grant, a refresh token: the grant is the
// family. Only hashes of codes and tokens are stored. A code presented a second time revokes the
// grant, and with it the token the first redemption issued (RFC 6749 4.1.2); so does a spent refresh
// token presented again (RFC 9700 4.14.2).
import { and, desc, eq, gt, isNotNull, isNull, lt, sql } from "drizzle-orm";
import { actAs } from "../../db/acting";
import { protocolGrants, protocolRefreshTokens } from "../../db/schema/mcp";
import { inTransaction, type Connection, type Tx } from "../../db/transaction";
import { appendAudit } from "../audit";
import { authorize, Denied } from "../auth";
import { constantTimeEqual } from "../http/constant-time";
import { newTokenValue } from "../tokens";
import { base64url, hashToken } from "../http/hash";

/** How long a code waits for the token endpoint. */
export const CODE_SECONDS = 5 * 60;
/** How long an access token works for a client without refresh tokens; then it sends the person through consent again. */
export const ACCESS_TOKEN_SECONDS = 30 * 24 * 3600;
/** How long an access token works for a client that refreshes: short, since a refresh is cheap and checks everything again. */
export const REFRESHED_ACCESS_TOKEN_SECONDS = 3600;
/** How long a refresh token waits for its use; each use gives a new one as long again (sliding). */
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
/** The family's absolute limit from consent: then the person consents again, however often the client refreshed. */
export const REFRESH_FAMILY_SECONDS = 90 * 24 * 3600;

export interface ConsentedGrant {
  orgId: string;
  personId: string;
  clientId: string;
  clientName: string;
  redirectUri: string;
  codeChallenge: string;
}

/** Records the consent in the organization the transaction acts as (after `authorize`); answers the code. */
export async function issueCode(tx: Tx, grant: ConsentedGrant): Promise<string> {
  const code = newTokenValue("protocol_code");
  await tx.insert(protocolGrants).values({
    orgId: grant.orgId,
    personId: grant.personId,
    clientId: grant.clientId,
    clientName: grant.clientName,
    redirectUri: grant.redirectUri,
    codeChallenge: grant.codeChallenge,
    codeHash: await hashToken(code),
    codeExpiresAt: sql`now() + make_interval(secs => ${CODE_SECONDS})`,
  });
  return code;
}

/** Whether the person consented to the client before (in any organization), and that consent stands. */
export function hasConsented(connect: () => Promise<Connection>, personId: string, clientId: string): Promise<boolean> {
  return inTransaction(connect, { lookups: { person_id: personId, protocol_client_id: clientId } }, async (tx) => {
    const rows = await tx
      .select({ one: sql`1` })
      .from(protocolGrants)
      .where(and(eq(protocolGrants.personId, personId), eq(protocolGrants.clientId, clientId), isNull(protocolGrants.revokedAt)))
      .limit(1);
    return rows.length > 0;
  });
}

/** RFC 7636 4.6: BASE64URL(SHA256(ASCII(code_verifier))) against the stored challenge, in constant time. */
export async function verifierMatches(verifier: string, challenge: string): Promise<boolean> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return constantTimeEqual(base64url(digest), challenge);
}

export interface Redemption {
  code: string;
  clientId: string;
  redirectUri: string;
  codeVerifier: string;
}

/** What the token endpoint answers: the tokens, or RFC 6749 5.2's refusal. */
export type Redeemed =
  | { ok: true; accessToken: string; expiresIn: number; refreshToken: string | null }
  | { ok: false; error: "invalid_grant"; description: string };

const refused = (description: string): Redeemed => ({ ok: false, error: "invalid_grant", description });

/**
 * A new access token for the grant, and a new refresh token when `refresh` (the client registered for
 * the grant type): the refresh token expires after its sliding lifetime, never after the family's end.
 */
async function issueTokens(tx: Tx, grant: { id: string; orgId: string }, refresh: boolean): Promise<Redeemed & { ok: true }> {
  const accessToken = newTokenValue("protocol_token");
  const expiresIn = refresh ? REFRESHED_ACCESS_TOKEN_SECONDS : ACCESS_TOKEN_SECONDS;
  await tx
    .update(protocolGrants)
    .set({ tokenHash: await hashToken(accessToken), tokenExpiresAt: sql`now() + make_interval(secs => ${expiresIn})` })
    .where(eq(protocolGrants.id, grant.id));
  if (!refresh) return { ok: true, accessToken, expiresIn, refreshToken: null };
  // The code's transaction found the grant by its code: it acts as the grant's organization to write a tenant row.
  await actAs(tx, grant.orgId);
  const refreshToken = newTokenValue("protocol_refresh");
  await tx.insert(protocolRefreshTokens).values({
    tokenHash: await hashToken(refreshToken),
    orgId: grant.orgId,
    grantId: grant.id,
    expiresAt: sql`least(now() + make_interval(secs => ${REFRESH_TOKEN_SECONDS}), (SELECT refresh_until FROM protocol_grants WHERE id = ${grant.id}))`,
  });
  return { ok: true, accessToken, expiresIn, refreshToken };
}

/**
 * The token endpoint's work: one transaction, the grant row locked, so two redemptions of one code
 * cannot both succeed. `refresh`: the client registered for the refresh_token grant.
 */
export async function redeemCode(connect: () => Promise<Connection>, redemption: Redemption, refresh: boolean): Promise<Redeemed> {
  const codeHash = await hashToken(redemption.code);
  return inTransaction(connect, { lookups: { protocol_code_hash: codeHash } }, async (tx): Promise<Redeemed> => {
    const g = protocolGrants;
    const [grant] = await tx
      .select({
        id: g.id,
        orgId: g.orgId,
        clientId: g.clientId,
        redirectUri: g.redirectUri,
        codeChallenge: g.codeChallenge,
        codeUsedAt: g.codeUsedAt,
        expired: sql<boolean>`${g.codeExpiresAt} <= now()`,
        revokedAt: g.revokedAt,
      })
      .from(g)
      .where(eq(g.codeHash, codeHash))
      .for("update");
    if (!grant) return refused("The authorization code is unknown.");
    if (grant.codeUsedAt) {
      // Someone holds a copy of a code already redeemed: what it issued is no longer trusted.
      await tx
        .update(g)
        .set({ revokedAt: sql`now()`, revokeReason: "code_reused" })
        .where(and(eq(g.id, grant.id), isNull(g.revokedAt)));
      return refused("The authorization code was already used; the access token it issued is revoked.");
    }
    if (grant.revokedAt) return refused("The authorization was revoked.");
    if (grant.expired) return refused("The authorization code expired; authorize again.");
    if (grant.clientId !== redemption.clientId) return refused("The authorization code was issued to another client.");
    if (grant.redirectUri !== redemption.redirectUri) return refused("The redirect_uri differs from the one the code was issued for.");
    if (!(await verifierMatches(redemption.codeVerifier, grant.codeChallenge))) return refused("The code_verifier does not match the code_challenge.");
    await tx
      .update(g)
      .set({ codeUsedAt: sql`now()`, refreshUntil: refresh ? sql`now() + make_interval(secs => ${REFRESH_FAMILY_SECONDS})` : null })
      .where(eq(g.id, grant.id));
    return issueTokens(tx, grant, refresh);
  });
}

/**
 * The refresh_token grant (RFC 6749 6, rotated as OAuth 2.1 asks of public clients): one transaction,
 * the family's grant locked, so two uses of one refresh token cannot both succeed. The token is spent
 * and a new pair issued, for the same person, organization and client (nothing widens: a grant has
 * no scopes beyond the person's role, checked on every call). A spent token presented again revokes
 * the family and its access token, audited. The person must still be a member.
 */
export async function refreshGrant(connect: () => Promise<Connection>, refreshToken: string, clientId: string): Promise<Redeemed> {
  const tokenHash = await hashToken(refreshToken);
  return inTransaction(connect, { lookups: { protocol_refresh_hash: tokenHash } }, async (tx): Promise<Redeemed> => {
    const r = protocolRefreshTokens;
    const g = protocolGrants;
    const [found] = await tx.select({ orgId: r.orgId, grantId: r.grantId }).from(r).where(eq(r.tokenHash, tokenHash));
    if (!found) return refused("The refresh token is unknown.");
    await actAs(tx, found.orgId);
    const [grant] = await tx
      .select({ id: g.id, orgId: g.orgId, personId: g.personId, clientId: g.clientId, clientName: g.clientName, revokedAt: g.revokedAt })
      .from(g)
      .where(eq(g.id, found.grantId))
      .for("update");
    // Read again under the family's lock: a concurrent use may have spent it.
    const [token] = await tx
      .select({ spentAt: r.spentAt, live: sql<boolean>`${r.expiresAt} > now()` })
      .from(r)
      .where(eq(r.tokenHash, tokenHash));
    if (!grant || !token) return refused("The refresh token is unknown.");
    if (grant.revokedAt) return refused("The connection was ended; connect the client again.");
    if (token.spentAt) {
      // Someone holds a copy of a spent token: nothing in its family is trusted any more.
      await tx.update(g).set({ revokedAt: sql`now()`, revokeReason: "refresh_reused" }).where(eq(g.id, grant.id));
      await appendAudit(tx, {
        orgId: grant.orgId,
        action: "protocol_client.refresh_reused",
        actorLabel: "authorization server",
        target: grant.clientName,
        data: { clientId: grant.clientId, personId: grant.personId },
      });
      return refused("The refresh token was already used; every token of this connection is revoked. Connect the client again.");
    }
    if (grant.clientId !== clientId) return refused("The refresh token was issued to another client.");
    if (!token.live) return refused("The refresh token expired; connect the client again.");
    const member = await authorize(tx, { kind: "session", personId: grant.personId }, grant.orgId, null).catch((denied: unknown) => {
      if (denied instanceof Denied) return null;
      throw denied;
    });
    if (!member) return refused("The person who connected this client is no longer a member of its organization.");
    await tx.update(r).set({ spentAt: sql`now()` }).where(eq(r.tokenHash, tokenHash));
    // Spent tokens are kept to recognise reuse only while they could have been used: past their expiry they go.
    await tx.delete(r).where(and(eq(r.grantId, grant.id), isNotNull(r.spentAt), lt(r.expiresAt, sql`now()`)));
    return issueTokens(tx, grant, true);
  });
}

export interface TokenGrant {
  grantId: string;
  orgId: string;
  personId: string;
  clientId: string;
}

// last_used_at is kept to the minute, like other tokens: one write per minute, not one per call.
const FIND_TOKEN = (tokenHash: string) => sql`
WITH live AS (
  SELECT id, org_id, person_id, client_id FROM protocol_grants
  WHERE token_hash = ${tokenHash} AND revoked_at IS NULL AND token_expires_at > now()
), touched AS (
  UPDATE protocol_grants SET last_used_at = now()
  WHERE id = (SELECT id FROM live) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
)
SELECT id, org_id, person_id, client_id FROM live`;

/**
 * Revokes the grant behind a live access token or a refresh token of its family (RFC 7009: the family
 * goes with either), when `clientId` is the client it was issued to: "wrong_client" otherwise; false
 * when no live grant has that token (already revoked, expired, never issued: the endpoint answers
 * the same).
 */
export function revokeByToken(connect: () => Promise<Connection>, tokenHash: string, clientId: string | null): Promise<boolean | "wrong_client"> {
  return inTransaction(connect, { lookups: { protocol_token_hash: tokenHash, protocol_refresh_hash: tokenHash } }, async (tx) => {
    const g = protocolGrants;
    const [refresh] = await tx
      .select({ orgId: protocolRefreshTokens.orgId, grantId: protocolRefreshTokens.grantId })
      .from(protocolRefreshTokens)
      .where(and(eq(protocolRefreshTokens.tokenHash, tokenHash), gt(protocolRefreshTokens.expiresAt, sql`now()`)));
    if (refresh) await actAs(tx, refresh.orgId);
    const [grant] = await tx
      .select({ id: g.id, clientId: g.clientId })
      .from(g)
      .where(and(refresh ? eq(g.id, refresh.grantId) : and(eq(g.tokenHash, tokenHash), gt(g.tokenExpiresAt, sql`now()`)), isNull(g.revokedAt)));
    if (!grant) return false;
    if (clientId !== null && clientId !== grant.clientId) return "wrong_client";
    await tx
      .update(g)
      .set({ revokedAt: sql`now()`, revokeReason: "client" })
      .where(and(eq(g.id, grant.id), isNull(g.revokedAt)));
    return true;
  });
}

/** The live grant behind an access token, in a transaction holding its hash as the `protocol_token_hash` lookup. */
export async function findTokenGrant(tx: Tx, tokenHash: string): Promise<TokenGrant | null> {
  const { rows } = await tx.execute<{ id: string; org_id: string; person_id: string; client_id: string }>(FIND_TOKEN(tokenHash));
  const row = rows[0];
  return row ? { grantId: row.id, orgId: row.org_id, personId: row.person_id, clientId: row.client_id } : null;
}

/**
 * The person's connected clients in the organization the transaction acts as: live grants whose code
 * was redeemed, until the later of the access token's expiry and the live refresh token's.
 */
export async function listConnectedClients(tx: Tx, orgId: string, personId: string) {
  const g = protocolGrants;
  const ends = sql<Date>`greatest(${g.tokenExpiresAt}, (SELECT max(r.expires_at) FROM protocol_refresh_tokens r WHERE r.grant_id = ${g.id} AND r.spent_at IS NULL))`;
  const rows = await tx
    .select({
      id: g.id,
      clientId: g.clientId,
      clientName: g.clientName,
      redirectUri: g.redirectUri,
      createdAt: g.createdAt,
      endsAt: ends.mapWith(g.tokenExpiresAt),
      lastUsedAt: g.lastUsedAt,
    })
    .from(g)
    .where(and(eq(g.orgId, orgId), eq(g.personId, personId), isNull(g.revokedAt), isNotNull(g.tokenHash), gt(ends, sql`now()`)))
    .orderBy(desc(g.createdAt));
  return rows.map((row) => ({
    grantId: row.id,
    clientId: row.clientId,
    clientName: row.clientName,
    redirectUri: row.redirectUri,
    connectedAt: row.createdAt.toISOString(),
    // Only grants that end in the future are listed (the condition above).
    expiresAt: row.endsAt!.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  }));
}

/** Revokes one of the person's own grants; false when there is no such live grant of theirs. */
export async function revokeConnectedClient(tx: Tx, orgId: string, personId: string, grantId: string): Promise<boolean> {
  const { rowCount } = await tx
    .update(protocolGrants)
    .set({ revokedAt: sql`now()`, revokeReason: "person" })
    .where(and(eq(protocolGrants.orgId, orgId), eq(protocolGrants.personId, personId), eq(protocolGrants.id, grantId), isNull(protocolGrants.revokedAt)));
  return (rowCount ?? 0) > 0;
}

/** Ending a membership ends the person's grants in that organization (worker/members/remove.ts). */
export async function revokeGrantsOf(tx: Tx, orgId: string, personId: string): Promise<number> {
  const { rowCount } = await tx
    .update(protocolGrants)
    .set({ revokedAt: sql`now()`, revokeReason: "membership_ended" })
    .where(and(eq(protocolGrants.orgId, orgId), eq(protocolGrants.personId, personId), isNull(protocolGrants.revokedAt)));
  return rowCount ?? 0;
}

/**
 * Every model client connected to the organization: it is being deleted (worker/deletion, the revoke
 * step) or was suspended (its people connect their clients again once it is lifted).
 */
export async function revokeOrganizationGrants(tx: Tx, orgId: string, reason: "organization_deleted" | "organization_suspended"): Promise<number> {
  const { rowCount } = await tx
    .update(protocolGrants)
    .set({ revokedAt: sql`now()`, revokeReason: reason })
    .where(and(eq(protocolGrants.orgId, orgId), isNull(protocolGrants.revokedAt)));
  return rowCount ?? 0;
}
