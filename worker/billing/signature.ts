// The billing provider's webhook signature (the Stripe-Signature scheme): `t=<unix seconds>` and one
// or more `v1=<hex HMAC-SHA256 of "<t>.<raw body>">` (several while the secret rotates). The header is
// checked before the body is read; then one HMAC over the raw bytes is compared with each `v1`.
import { constantTimeEqual } from "../http/constant-time";

export const BILLING_SIGNATURE_HEADER = "stripe-signature";

/** How far the signed timestamp may be from now, either way. */
export const TOLERANCE_SECONDS = 5 * 60;

/** The most `v1` signatures one header may carry: a rotation needs two; more is refused unhashed. */
export const MAX_SIGNATURES = 4;

export type BillingSignatureCheck = "valid" | "missing" | "malformed" | "crowded" | "stale" | "mismatch";

export interface SignedHeader {
  timestamp: number;
  /** Lower-case hex. */
  signatures: string[];
}

/** The header's shape: one numeric `t`, one to MAX_SIGNATURES `v1` of 64 hex digits; other schemes (`v0`) are ignored. */
function parse(header: string): SignedHeader | "malformed" | "crowded" {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const separator = part.indexOf("=");
    if (separator < 1) return "malformed";
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === "t") {
      if (timestamp !== null || !/^\d{1,12}$/.test(value)) return "malformed";
      timestamp = Number(value);
    } else if (key === "v1") {
      if (!/^[0-9a-fA-F]{64}$/.test(value)) return "malformed";
      signatures.push(value.toLowerCase());
    }
  }
  if (timestamp === null || signatures.length === 0) return "malformed";
  return signatures.length > MAX_SIGNATURES ? "crowded" : { timestamp, signatures };
}

/** What can be judged before the body is read: the header's shape, its count of signatures and its timestamp. */
export function readBillingSignature(header: string | undefined, nowSeconds: number): SignedHeader | Exclude<BillingSignatureCheck, "valid" | "mismatch"> {
  if (!header) return "missing";
  const parsed = parse(header);
  if (typeof parsed === "string") return parsed;
  return Math.abs(nowSeconds - parsed.timestamp) > TOLERANCE_SECONDS ? "stale" : parsed;
}

/** Hex HMAC-SHA256 of `<t>.` followed by the raw body, as the provider signs it. */
async function mac(secret: string, timestamp: number, body: Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const prefix = new TextEncoder().encode(`${timestamp}.`);
  const payload = new Uint8Array(prefix.length + body.length);
  payload.set(prefix);
  payload.set(body, prefix.length);
  const digest = new Uint8Array(await crypto.subtle.sign("HMAC", key, payload));
  return [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** One HMAC for the request, compared in constant time with every `v1` (none is skipped, so timing tells nothing about which matched). */
export async function matchesBillingSignature(secret: string, signed: SignedHeader, body: Uint8Array): Promise<boolean> {
  const expected = await mac(secret, signed.timestamp, body);
  return signed.signatures.reduce((matched, signature) => constantTimeEqual(signature, expected) || matched, false);
}

/** The header the provider would send for `body` (the local fake provider signs with it). */
export async function signBillingBody(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)): Promise<string> {
  return `t=${timestamp},v1=${await mac(secret, timestamp, new TextEncoder().encode(body))}`;
}
