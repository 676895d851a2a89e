// The licence: a compact JWS (`header.payload.signature`, base64url) signed with EdDSA.
// Only its shape and key id are checked here; the signature is verified later, asynchronously.
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
  if (now >= exp * 1000) return "expired";
  return "present";
}

function readPublicKeys(r: EnvReader): Map<string, string> | null {
  if (r.text("SVC_LICENSE_PUBLIC_KEYS") === undefined) {
    r.refuseUnset("SVC_LICENSE_PUBLIC_KEYS", " when SVC_LICENSE_KEY is set");
    return null;
  }
  const keys = readEntries(r, "SVC_LICENSE_PUBLIC_KEYS", "<kid>=<base64 key>");
  const bad = [...(keys ?? [])].filter(([, key]) => !decodeBase64(key)?.length).map(([kid]) => kid);
  for (const kid of bad) r.refuse("SVC_LICENSE_PUBLIC_KEYS", `SVC_LICENSE_PUBLIC_KEYS key "${kid}" is not base64.`);
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
    payload: { lid: payloadJson.lid, sub: payloadJson.sub, exp: payloadJson.exp, features: payloadJson.features ?? [] },
    signingInput: `${header}.${payload}`,
    signature: signatureBytes,
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

function isPayload(value: unknown): value is Omit<LicencePayload, "features"> & { features?: string[] } {
  return isRecord(value) && isNonEmptyString(value.lid) && isNonEmptyString(value.sub) &&
    typeof value.exp === "number" && Number.isInteger(value.exp) && value.exp >= 0 && value.exp <= LAST_DATE_SECONDS &&
    (value.features === undefined || (Array.isArray(value.features) && value.features.every((feature) => typeof feature === "string")));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}
