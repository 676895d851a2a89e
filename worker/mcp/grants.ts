// Grants: a person's consent for one client in one organization. Consent stores a single-use code
// (short lived, bound to the client, the redirect URI and the PKCE challenge); the token endpoint
// redeems it once for an opaque access token bound to the person, the organization and the client.
// No refresh token is issued. Only hashes of codes and tokens are stored. A code presented a second
// time revokes the grant, and with it the token the first redemption issued (RFC 6749 4.1.2).
import { and, desc, eq, gt, isNotNull, isNull, sql } from "drizzle-orm";
import { protocolGrants } from "../../db/schema/mcp";
import { inTransaction, type Connection, type Tx } from "../../db/transaction";
import { authorize, Denied, type Grant } from "../auth";
import { constantTimeEqual } from "../http/constant-time";
import { newTokenValue } from "../tokens";
import { base64url, hashToken } from "../http/hash";

/** How long a code waits for the token endpoint. */
export const CODE_SECONDS = 5 * 60;
/** How long an access token works (there is no refresh token); then the client sends the person through consent again. */
export const ACCESS_TOKEN_SECONDS = 30 * 24 * 3600;

/** What a suspended organization's model client is told, at consent, at the token endpoint and on /mcp (worker/operators/suspension.ts). */
export const SUSPENDED = "This organization is suspended, so its model clients are refused for now; connect the client again once the suspension is lifted.";

/** The person's standing in the organization (the transaction acts as it from here on); null when they are no longer a member. */
export function membership(tx: Tx, personId: string, orgId: string): Promise<Grant | null> {
  return authorize(tx, { kind: "session", personId }, orgId, null).catch((denied: unknown) => {
    if (denied instanceof Denied) return null;
    throw denied;
  });
}

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
export type Redeemed = { ok: true; accessToken: string; expiresIn: number } | { ok: false; error: "invalid_grant"; description: string };

const refused = (description: string): Redeemed => ({ ok: false, error: "invalid_grant", description });

/**
 * The token endpoint's work: one transaction, the grant row locked, so two redemptions of one code
 * cannot both succeed.
 */
export async function redeemCode(connect: () => Promise<Connection>, redemption: Redemption): Promise<Redeemed> {
  const codeHash = await hashToken(redemption.code);
  return inTransaction(connect, { lookups: { protocol_code_hash: codeHash } }, async (tx): Promise<Redeemed> => {
    const g = protocolGrants;
    const [grant] = await tx
      .select({
        id: g.id,
        orgId: g.orgId,
        personId: g.personId,
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
    const member = await membership(tx, grant.personId, grant.orgId);
    if (!member) return refused("The person who connected this client is no longer a member of its organization.");
    if (member.suspended) return refused(SUSPENDED);
    const accessToken = newTokenValue("protocol_token");
    await tx
      .update(g)
      .set({ codeUsedAt: sql`now()`, tokenHash: await hashToken(accessToken), tokenExpiresAt: sql`now() + make_interval(secs => ${ACCESS_TOKEN_SECONDS})` })
      .where(eq(g.id, grant.id));
    return { ok: true, accessToken, expiresIn: ACCESS_TOKEN_SECONDS };
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
 * Revokes the grant behind a live access token (RFC 7009), when `clientId` is the client it was issued
 * to: "wrong_client" otherwise; false when no live grant has that token (already revoked, expired,
 * never issued: the endpoint answers the same).
 */
export function revokeByToken(connect: () => Promise<Connection>, tokenHash: string, clientId: string | null): Promise<boolean | "wrong_client"> {
  return inTransaction(connect, { lookups: { protocol_token_hash: tokenHash } }, async (tx) => {
    const g = protocolGrants;
    const [grant] = await tx
      .select({ id: g.id, clientId: g.clientId })
      .from(g)
      .where(and(eq(g.tokenHash, tokenHash), gt(g.tokenExpiresAt, sql`now()`), isNull(g.revokedAt)));
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

/** The person's connected clients in the organization the transaction acts as: live grants whose code was redeemed, until their access token's expiry. */
export async function listConnectedClients(tx: Tx, orgId: string, personId: string) {
  const g = protocolGrants;
  const rows = await tx
    .select({
      id: g.id,
      clientId: g.clientId,
      clientName: g.clientName,
      redirectUri: g.redirectUri,
      createdAt: g.createdAt,
      endsAt: g.tokenExpiresAt,
      lastUsedAt: g.lastUsedAt,
    })
    .from(g)
    .where(and(eq(g.orgId, orgId), eq(g.personId, personId), isNull(g.revokedAt), isNotNull(g.tokenHash), gt(g.tokenExpiresAt, sql`now()`)))
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
