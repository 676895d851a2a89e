// The device authorization flow (RFC 8628) that gives the CLI its token: the CLI asks for codes,
// a signed-in person approves the user code for one of their organizations, the CLI polls until a
// token is issued with the requested scopes, never more than the person's role allows.
import { actAs, inTransaction, type Connection } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import { authorize, Denied, effectiveScopes } from "../auth/authorize";
import type { Permission } from "../shared/permissions";
import { issueToken } from "../tokens/issue";
import { hashToken, newTokenValue } from "../tokens/secret";

export const DEVICE_CODE_SECONDS = 15 * 60;
export const POLL_INTERVAL_SECONDS = 5;
/** RFC 8628 3.5: each slow_down adds this much to the interval the client must keep. */
const SLOW_DOWN_STEP = 5;

/** `clientId`: the client as it names itself (RFC 8628 3.1); shown to the person, never trusted. */
export async function startDeviceAuthorization(connect: () => Promise<Connection>, clientId: string, scopes: readonly Permission[]) {
  const deviceCode = newTokenValue("device_code");
  const userCode = newUserCode();
  await inTransaction(connect, {}, async (tx) =>
    tx.sql.query(
      `INSERT INTO device_authorizations (device_code_hash, user_code, client_id, scopes, interval_seconds, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`,
      [await hashToken(deviceCode), userCode, clientId, scopes, POLL_INTERVAL_SECONDS, DEVICE_CODE_SECONDS],
    ),
  );
  return { deviceCode, userCode, expiresIn: DEVICE_CODE_SECONDS, interval: POLL_INTERVAL_SECONDS };
}

export interface PendingRequest {
  userCode: string;
  clientId: string | null;
  scopes: Permission[];
}

/** The pending request behind a user code, for the approval page to show; null when none is pending. */
export async function findPendingDeviceAuthorization(connect: () => Promise<Connection>, typedCode: string): Promise<PendingRequest | null> {
  const userCode = normalizeUserCode(typedCode);
  if (!userCode) return null;
  return inTransaction(connect, { lookups: { user_code: userCode } }, async (tx) => {
    const { rows } = await tx.sql.query<{ client_id: string | null; scopes: Permission[] }>(
      "SELECT client_id, scopes FROM device_authorizations WHERE user_code = $1 AND status = 'pending' AND expires_at > now()",
      [userCode],
    );
    const row = rows[0];
    return row ? { userCode, clientId: row.client_id, scopes: row.scopes } : null;
  });
}

export type Decision = { ok: true; approved: boolean; scopes: Permission[] } | { ok: false; reason: "unknown_code" | "not_a_member" };

/** A signed-in person's answer to a user code, for one of their organizations. */
export async function decideDeviceAuthorization(
  connect: () => Promise<Connection>,
  person: { id: string },
  typedCode: string,
  orgId: string,
  approve: boolean,
): Promise<Decision> {
  const userCode = normalizeUserCode(typedCode);
  return inTransaction(connect, { orgId, lookups: { user_code: userCode, person_id: person.id } }, async (tx) => {
    const pending = await tx.sql.query<{ id: string; scopes: Permission[] }>(
      "SELECT id, scopes FROM device_authorizations WHERE user_code = $1 AND status = 'pending' AND expires_at > now() FOR UPDATE",
      [userCode],
    );
    const request = pending.rows[0];
    if (!request) return { ok: false, reason: "unknown_code" };
    const grant = await authorize(tx, { kind: "session", personId: person.id }, orgId, null).catch((denied: unknown) => {
      if (denied instanceof Denied) return null;
      throw denied;
    });
    if (!grant) return { ok: false, reason: "not_a_member" };
    // What the token may do is checked against the role on every request; this records what was granted at the time.
    const granted = effectiveScopes(grant.role, request.scopes);
    await tx.sql.query(
      "UPDATE device_authorizations SET status = $2, person_id = $3, granted_org_id = $4, granted_scopes = $5 WHERE id = $1",
      approve ? [request.id, "approved", person.id, orgId, granted] : [request.id, "denied", person.id, null, null],
    );
    await appendAudit(tx, {
      orgId,
      action: approve ? "device.approved" : "device.denied",
      actorPersonId: person.id,
      actorLabel: grant.actorLabel,
      data: { requested: request.scopes, granted: approve ? granted : [] },
    });
    return { ok: true, approved: approve, scopes: approve ? granted : [] };
  });
}

export type Poll =
  | { status: "issued"; token: string; scopes: string[] }
  | { status: "authorization_pending" | "slow_down" | "expired_token" | "access_denied" | "invalid_grant" };

interface Row {
  id: string;
  status: "pending" | "approved" | "denied" | "issued";
  expired: boolean;
  too_soon: boolean;
  person_id: string | null;
  granted_org_id: string | null;
  granted_scopes: Permission[] | null;
}

/** The CLI's poll: RFC 8628 3.5 answers, and the token once, when approved. */
export async function pollDeviceAuthorization(connect: () => Promise<Connection>, deviceCode: string): Promise<Poll> {
  const codeHash = await hashToken(deviceCode);
  return inTransaction(connect, { lookups: { device_code_hash: codeHash } }, async (tx) => {
    const { rows } = await tx.sql.query<Row>(
      `SELECT id, status, expires_at <= now() AS expired,
              last_polled_at IS NOT NULL AND last_polled_at > now() - make_interval(secs => interval_seconds) AS too_soon,
              person_id, granted_org_id, granted_scopes
       FROM device_authorizations WHERE device_code_hash = $1 FOR UPDATE`,
      [codeHash],
    );
    const request = rows[0];
    if (!request || request.status === "issued") return { status: "invalid_grant" };
    if (request.expired) return { status: "expired_token" };
    if (request.status === "denied") return { status: "access_denied" };
    if (request.too_soon) {
      await tx.sql.query("UPDATE device_authorizations SET interval_seconds = interval_seconds + $2, last_polled_at = now() WHERE id = $1", [
        request.id,
        SLOW_DOWN_STEP,
      ]);
      return { status: "slow_down" };
    }
    await tx.sql.query("UPDATE device_authorizations SET last_polled_at = now() WHERE id = $1", [request.id]);
    if (request.status === "pending") return { status: "authorization_pending" };

    const orgId = request.granted_org_id!;
    const scopes = request.granted_scopes ?? [];
    await tx.sql.query("UPDATE device_authorizations SET status = 'issued' WHERE id = $1", [request.id]);
    await actAs(tx, orgId);
    const personId = request.person_id!;
    const issued = await issueToken(tx, { orgId, kind: "cli", name: "CLI (device sign-in)", scopes, personId, createdBy: personId });
    await appendAudit(tx, {
      orgId,
      action: "token.created",
      actorPersonId: personId,
      actorLabel: "device sign-in",
      target: issued.id,
      data: { kind: "cli", scopes },
    });
    return { status: "issued", token: issued.token, scopes };
  });
}

// The device flow's codes: the device code is a secret (only its hash is stored); the user code is
// short, typed by a person, from an alphabet without look-alike letters.
const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";

export function newUserCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return [...bytes].map((byte) => USER_CODE_ALPHABET[byte % USER_CODE_ALPHABET.length]).join("");
}

/** What a person typed, as stored: upper case, no separators. */
export const normalizeUserCode = (typed: string) => typed.toUpperCase().replace(/[^A-Z]/g, "");

export const displayUserCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;
