// Grants: a person's consent for one client in one organization. Consent stores a single-use code
// (short lived, bound to the client, the redirect URI and the PKCE challenge); the token endpoint
// redeems it once for an opaque access token bound to the person, the organization and the client.
// Only hashes of codes and tokens are stored. A code presented a second time revokes the grant, and
// with it the token the first redemption issued (RFC 6749 4.1.2).
import { inTransaction, type Connection, type Tx } from "../../db/transaction";
import { constantTimeEqual } from "../http/constant-time";
import { base64url, hashToken, newTokenValue } from "../tokens/secret";

/** How long a code waits for the token endpoint. */
export const CODE_SECONDS = 5 * 60;
/** How long an access token works; then the client sends the person through consent again (no refresh tokens). */
export const ACCESS_TOKEN_SECONDS = 30 * 24 * 3600;

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
  await tx.sql.query(
    `INSERT INTO protocol_grants (org_id, person_id, client_id, client_name, redirect_uri, code_challenge, code_hash, code_expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))`,
    [grant.orgId, grant.personId, grant.clientId, grant.clientName, grant.redirectUri, grant.codeChallenge, await hashToken(code), CODE_SECONDS],
  );
  return code;
}

/** Whether the person consented to the client before (in any organization), and that consent stands. */
export function hasConsented(connect: () => Promise<Connection>, personId: string, clientId: string): Promise<boolean> {
  return inTransaction(connect, { lookups: { person_id: personId, protocol_client_id: clientId } }, async (tx) => {
    const { rows } = await tx.sql.query("SELECT 1 FROM protocol_grants WHERE person_id = $1 AND client_id = $2 AND revoked_at IS NULL LIMIT 1", [
      personId,
      clientId,
    ]);
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

export type Redeemed = { ok: true; accessToken: string; expiresIn: number } | { ok: false; error: "invalid_grant"; description: string };

interface CodeRow {
  id: string;
  org_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  code_used_at: Date | null;
  expired: boolean;
  revoked_at: Date | null;
}

/** The token endpoint's work: one transaction, the grant row locked, so two redemptions of one code cannot both succeed. */
export async function redeemCode(connect: () => Promise<Connection>, redemption: Redemption): Promise<Redeemed> {
  const codeHash = await hashToken(redemption.code);
  return inTransaction(connect, { lookups: { protocol_code_hash: codeHash } }, async (tx): Promise<Redeemed> => {
    const { rows } = await tx.sql.query<CodeRow>(
      `SELECT id, org_id, client_id, redirect_uri, code_challenge, code_used_at, code_expires_at <= now() AS expired, revoked_at
       FROM protocol_grants WHERE code_hash = $1 FOR UPDATE`,
      [codeHash],
    );
    const grant = rows[0];
    const refused = (description: string): Redeemed => ({ ok: false, error: "invalid_grant", description });
    if (!grant) return refused("The authorization code is unknown.");
    if (grant.code_used_at) {
      // Someone holds a copy of a code already redeemed: what it issued is no longer trusted.
      await tx.sql.query("UPDATE protocol_grants SET revoked_at = now(), revoke_reason = 'code_reused' WHERE id = $1 AND revoked_at IS NULL", [grant.id]);
      return refused("The authorization code was already used; the access token it issued is revoked.");
    }
    if (grant.revoked_at) return refused("The authorization was revoked.");
    if (grant.expired) return refused("The authorization code expired; authorize again.");
    if (grant.client_id !== redemption.clientId) return refused("The authorization code was issued to another client.");
    if (grant.redirect_uri !== redemption.redirectUri) return refused("The redirect_uri differs from the one the code was issued for.");
    if (!(await verifierMatches(redemption.codeVerifier, grant.code_challenge))) return refused("The code_verifier does not match the code_challenge.");
    const accessToken = newTokenValue("protocol_token");
    await tx.sql.query(`UPDATE protocol_grants SET code_used_at = now(), token_hash = $2, token_expires_at = now() + make_interval(secs => $3) WHERE id = $1`, [
      grant.id,
      await hashToken(accessToken),
      ACCESS_TOKEN_SECONDS,
    ]);
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
const FIND_TOKEN = `
WITH live AS (
  SELECT id, org_id, person_id, client_id FROM protocol_grants
  WHERE token_hash = $1 AND revoked_at IS NULL AND token_expires_at > now()
), touched AS (
  UPDATE protocol_grants SET last_used_at = now()
  WHERE id = (SELECT id FROM live) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
)
SELECT id, org_id, person_id, client_id FROM live`;

/** The live grant behind an access token, in a transaction holding its hash as the `protocol_token_hash` lookup. */
export async function findTokenGrant(tx: Tx, tokenHash: string): Promise<TokenGrant | null> {
  const { rows } = await tx.sql.query<{ id: string; org_id: string; person_id: string; client_id: string }>(FIND_TOKEN, [tokenHash]);
  const row = rows[0];
  return row ? { grantId: row.id, orgId: row.org_id, personId: row.person_id, clientId: row.client_id } : null;
}

/** The person's connected clients in the organization the transaction acts as: live grants whose code was redeemed. */
export async function listConnectedClients(tx: Tx, orgId: string, personId: string) {
  const { rows } = await tx.sql.query<{
    id: string;
    client_id: string;
    client_name: string;
    redirect_uri: string;
    created_at: Date;
    token_expires_at: Date;
    last_used_at: Date | null;
  }>(
    `SELECT id, client_id, client_name, redirect_uri, created_at, token_expires_at, last_used_at FROM protocol_grants
     WHERE org_id = $1 AND person_id = $2 AND revoked_at IS NULL AND token_hash IS NOT NULL AND token_expires_at > now()
     ORDER BY created_at DESC`,
    [orgId, personId],
  );
  return rows.map((row) => ({
    grantId: row.id,
    clientId: row.client_id,
    clientName: row.client_name,
    redirectUri: row.redirect_uri,
    connectedAt: row.created_at.toISOString(),
    expiresAt: row.token_expires_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
  }));
}

/** Revokes one of the person's own grants; false when there is no such live grant of theirs. */
export async function revokeConnectedClient(tx: Tx, orgId: string, personId: string, grantId: string): Promise<boolean> {
  const { rowCount } = await tx.sql.query(
    "UPDATE protocol_grants SET revoked_at = now(), revoke_reason = 'person' WHERE org_id = $1 AND person_id = $2 AND id = $3 AND revoked_at IS NULL",
    [orgId, personId, grantId],
  );
  return (rowCount ?? 0) > 0;
}

/** Ending a membership ends the person's grants in that organization (worker/members/remove.ts). */
export async function revokeGrantsOf(tx: Tx, orgId: string, personId: string): Promise<number> {
  const { rowCount } = await tx.sql.query(
    "UPDATE protocol_grants SET revoked_at = now(), revoke_reason = 'membership_ended' WHERE org_id = $1 AND person_id = $2 AND revoked_at IS NULL",
    [orgId, personId],
  );
  return rowCount ?? 0;
}

/** An organization being deleted: every model client connected to it (worker/deletion, the revoke step). */
export async function revokeOrganizationGrants(tx: Tx, orgId: string): Promise<number> {
  const { rowCount } = await tx.sql.query(
    "UPDATE protocol_grants SET revoked_at = now(), revoke_reason = 'organization_deleted' WHERE org_id = $1 AND revoked_at IS NULL",
    [orgId],
  );
  return rowCount ?? 0;
}
