// The licence: a compact JWS (`header.payload.signature`, base64url) signed with EdDSA.
// Only its shape and key id are checked here; the signature is verified asynchronously with jose
// (worker/enterprise/licence.ts) at isolate start and by `config check`, both before anything is served.
import { decodeBase64, readEntries, splitNames, type EnvReader } from "./readers";
import type { Licence, LicencePayload, LicenceState, LicenceToken } from "./types";

const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** The latest instant a JavaScript Date can hold, in seconds: any later `exp` is not a date. */
const LAST_DATE_SECONDS = 8.64e12;

export function readLicence(r: EnvReader, now: number): Licence {
  const text = r.text("SVC_LICENSE_KEY");
  if (text === undefined) return { state: "none" };
  if (r.text("SVC_ORG") === undefined) r.refuseUnset("SVC_ORG", " when SVC_LICENSE_KEY is set");
  const publicKeys = readPublicKeys(r);
  const token = parseToken(text);
  if (token === null) {
    r.refuse("SVC_LICENSE_KEY", "SVC_LICENSE_KEY is not a licence: expected an EdDSA compact JWS whose payload has lid, sub and exp.", 2);
    return { state: "none" };
  }
  // Without the trusted keys nobody can tell whether the signer is trusted; that error is already recorded.
  if (publicKeys === null) return { state: "none" };
  const publicKey = publicKeys.get(token.header.kid);
  if (publicKey === undefined) {
    r.refuse("SVC_LICENSE_KEY", `SVC_LICENSE_KEY is signed with key id "${token.header.kid}", which SVC_LICENSE_PUBLIC_KEYS does not trust.`, 2);
    return { state: "none" };
  }
  const licence = { org: r.text("SVC_ORG") ?? "", revoked: splitNames(r.text("SVC_LICENSE_REVOKED") ?? ""), token, publicKey };
  return { state: licenceState(licence, now), ...licence };
}

/** Exported for request time: expiry moves on after startup (and Workers freeze the clock at startup). */
export function licenceState(licence: { org: string; revoked: string[]; token: LicenceToken }, now: number): Exclude<LicenceState, "none"> {
  const { sub, lid, exp } = licence.token.payload;
  if (sub !== licence.org) return "wrong_org";
  if (licence.revoked.includes(lid)) return "revoked";
  if (now < exp * 1000) return "valid";
  if (now < (exp + licence.token.payload.grace) * 1000) return "grace";
  return "expired";
}

function readPublicKeys(r: EnvReader): Map<string, string> | null {
  if (r.text("SVC_LICENSE_PUBLIC_KEYS") === undefined) {
    r.refuseUnset("SVC_LICENSE_PUBLIC_KEYS", " when SVC_LICENSE_KEY is set");
    return null;
  }
  const keys = readEntries(r, "SVC_LICENSE_PUBLIC_KEYS", "<kid>=<base64 key>");
  // Raw Ed25519 public keys are 32 bytes (what `svc licence keygen` prints).
  const bad = [...(keys ?? [])].filter(([, key]) => decodeBase64(key)?.length !== 32).map(([kid]) => kid);
  for (const kid of bad) r.refuse("SVC_LICENSE_PUBLIC_KEYS", `SVC_LICENSE_PUBLIC_KEYS key "${kid}" is not the base64 of a 32-byte Ed25519 public key.`);
  return bad.length === 0 ? keys : null;
}

function parseToken(text: string): LicenceToken | null {
  const [header, payload, signature, ...rest] = text.split(".");
  if (header === undefined || payload === undefined || signature === undefined || rest.length > 0) return null;
  const headerJson = decodeJson(header);
  const payloadJson = decodeJson(payload);
  const signatureBytes = decodeBase64Url(signature);
  if (!isHeader(headerJson) || !isPayload(payloadJson) || signatureBytes === null) return null;
  return {
    header: { alg: "EdDSA", kid: headerJson.kid },
    payload: { lid: payloadJson.lid, sub: payloadJson.sub, exp: payloadJson.exp, grace: payloadJson.grace ?? 0, features: payloadJson.features ?? [] },
    signingInput: `${header}.${payload}`,
    signature: signatureBytes,
    compact: text,
  };
}

function decodeBase64Url(text: string): Uint8Array | null {
  if (!BASE64URL.test(text)) return null;
  return decodeBase64(text.replaceAll("-", "+").replaceAll("_", "/"));
}

function decodeJson(text: string): unknown {
  const bytes = decodeBase64Url(text);
  if (bytes === null) return undefined;
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes));
  } catch {
    return undefined;
  }
}

function isHeader(value: unknown): value is { alg: "EdDSA"; kid: string } {
  return isRecord(value) && value.alg === "EdDSA" && isNonEmptyString(value.kid);
}

function isPayload(value: unknown): value is Omit<LicencePayload, "features" | "grace"> & { features?: string[]; grace?: number } {
  return (
    isRecord(value) &&
    isNonEmptyString(value.lid) &&
    isNonEmptyString(value.sub) &&
    typeof value.exp === "number" &&
    Number.isInteger(value.exp) &&
    value.exp >= 0 &&
    value.exp <= LAST_DATE_SECONDS &&
    (value.grace === undefined || (typeof value.grace === "number" && Number.isInteger(value.grace) && value.grace >= 0 && value.grace <= LAST_DATE_SECONDS)) &&
    (value.features === undefined || (Array.isArray(value.features) && value.features.every((feature) => typeof feature === "string")))
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}

/** What a licence grants at `now`: the facts the start-up line, the enterprise gate and the published document share. */
export interface LicenceFacts {
  state: LicenceState;
  id: string | null;
  expiresAt: string | null;
  graceEndsAt: string | null;
  /** Features the licence lists, whatever its state. */
  features: string[];
  /** Features usable now: the listed ones while valid or in grace, none otherwise. */
  permissions: string[];
}

export function licenceFacts(licence: Licence | undefined, now: number): LicenceFacts {
  if (licence === undefined || licence.state === "none") {
    return { state: "none", id: null, expiresAt: null, graceEndsAt: null, features: [], permissions: [] };
  }
  const { lid, exp, grace, features } = licence.token.payload;
  const state = licenceState(licence, now);
  return {
    state,
    id: lid,
    expiresAt: new Date(exp * 1000).toISOString(),
    graceEndsAt: new Date((exp + grace) * 1000).toISOString(),
    features,
    permissions: state === "valid" || state === "grace" ? features : [],
  };
}
