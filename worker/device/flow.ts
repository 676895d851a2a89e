// The device authorization flow (RFC 8628) that gives the CLI its token: the CLI asks for codes,
// a signed-in person approves the user code for one of their organizations, the CLI polls until a
// token is issued with the requested scopes, never more than the person's role allows.
import { and, eq, gt, sql } from "drizzle-orm";
import { deviceAuthorizations } from "../../db/schema/signin";
import { inTransaction, type Connection } from "../../db/transaction";
import { actAs } from "../../db/acting";
import { appendAudit } from "../audit";
import { authorize, Denied, effectiveScopes } from "../auth";
import type { Permission } from "../shared/permissions";
import { issueToken } from "../tokens";
import { newTokenValue } from "../tokens";
import { hashToken } from "../http/hash";

export const DEVICE_CODE_SECONDS = 15 * 60;
export const POLL_INTERVAL_SECONDS = 5;
/** RFC 8628 3.5: each slow_down adds this much to the interval the client must keep. */
const SLOW_DOWN_STEP = 5;

/** `clientId`: the client as it names itself (RFC 8628 3.1); shown to the person, never trusted. */
export async function startDeviceAuthorization(connect: () => Promise<Connection>, clientId: string, scopes: readonly Permission[]) {
  const deviceCode = newTokenValue("device_code");
  const userCode = newUserCode();
  await inTransaction(connect, {}, async (tx) =>
    tx.insert(deviceAuthorizations).values({
      deviceCodeHash: await hashToken(deviceCode),
      userCode,
      clientId,
      scopes: [...scopes],
      intervalSeconds: POLL_INTERVAL_SECONDS,
      expiresAt: sql`now() + make_interval(secs => ${DEVICE_CODE_SECONDS})`,
    }),
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
    const [row] = await tx
      .select({ clientId: deviceAuthorizations.clientId, scopes: deviceAuthorizations.scopes })
      .from(deviceAuthorizations)
      .where(pendingCode(userCode));
    return row ? { userCode, clientId: row.clientId, scopes: row.scopes as Permission[] } : null;
  });
}

/** A user code's request still waiting for an answer. */
const pendingCode = (userCode: string) =>
  and(eq(deviceAuthorizations.userCode, userCode), eq(deviceAuthorizations.status, "pending"), gt(deviceAuthorizations.expiresAt, sql`now()`));

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
    const [request] = await tx
      .select({ id: deviceAuthorizations.id, scopes: deviceAuthorizations.scopes })
      .from(deviceAuthorizations)
      .where(pendingCode(userCode))
      .for("update");
    if (!request) return { ok: false, reason: "unknown_code" };
    const grant = await authorize(tx, { kind: "session", personId: person.id }, orgId, null).catch((denied: unknown) => {
      if (denied instanceof Denied) return null;
      throw denied;
    });
    if (!grant) return { ok: false, reason: "not_a_member" };
    // What the token may do is checked against the role on every request; this records what was granted at the time.
    const granted = effectiveScopes(grant.role, request.scopes);
    await tx
      .update(deviceAuthorizations)
      .set(
        approve
          ? { status: "approved", personId: person.id, grantedOrgId: orgId, grantedScopes: granted }
          : { status: "denied", personId: person.id, grantedOrgId: null, grantedScopes: null },
      )
      .where(eq(deviceAuthorizations.id, request.id));
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

/** The CLI's poll: RFC 8628 3.5 answers, and the token once, when approved. */
export async function pollDeviceAuthorization(connect: () => Promise<Connection>, deviceCode: string): Promise<Poll> {
  const codeHash = await hashToken(deviceCode);
  return inTransaction(connect, { lookups: { device_code_hash: codeHash } }, async (tx) => {
    const d = deviceAuthorizations;
    const [request] = await tx
      .select({
        id: d.id,
        status: d.status,
        expired: sql<boolean>`${d.expiresAt} <= now()`,
        tooSoon: sql<boolean>`${d.lastPolledAt} IS NOT NULL AND ${d.lastPolledAt} > now() - make_interval(secs => ${d.intervalSeconds})`,
        personId: d.personId,
        grantedOrgId: d.grantedOrgId,
        grantedScopes: d.grantedScopes,
      })
      .from(d)
      .where(eq(d.deviceCodeHash, codeHash))
      .for("update");
    if (!request || request.status === "issued") return { status: "invalid_grant" };
    if (request.expired) return { status: "expired_token" };
    if (request.status === "denied") return { status: "access_denied" };
    if (request.tooSoon) {
      await tx
        .update(d)
        .set({ intervalSeconds: sql`${d.intervalSeconds} + ${SLOW_DOWN_STEP}`, lastPolledAt: sql`now()` })
        .where(eq(d.id, request.id));
      return { status: "slow_down" };
    }
    await tx.update(d).set({ lastPolledAt: sql`now()` }).where(eq(d.id, request.id));
    if (request.status === "pending") return { status: "authorization_pending" };

    const orgId = request.grantedOrgId!;
    const scopes = (request.grantedScopes ?? []) as Permission[];
    await tx.update(d).set({ status: "issued" }).where(eq(d.id, request.id));
    await actAs(tx, orgId);
    const personId = request.personId!;
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
