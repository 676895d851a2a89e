// The billing provider's webhook signature (the Stripe-Signature scheme): `t=<unix seconds>` and one
// or more `v1=<hex HMAC-SHA256 of "<t>.<raw body>">` (several while the secret rotates). Checked over
// the raw bytes before anything is parsed; Web Crypto's verify compares in constant time.

export const BILLING_SIGNATURE_HEADER = "stripe-signature";

/** How far the signed timestamp may be from now, either way. */
export const TOLERANCE_SECONDS = 5 * 60;

export type BillingSignatureCheck = "valid" | "missing" | "malformed" | "stale" | "mismatch";

interface Parsed {
  timestamp: number;
  signatures: Uint8Array[];
}

/** The header's shape: one numeric `t`, at least one `v1` of 64 hex digits; other schemes (`v0`) are ignored. */
function parse(header: string): Parsed | null {
  let timestamp: number | null = null;
  const signatures: Uint8Array[] = [];
  for (const part of header.split(",")) {
    const separator = part.indexOf("=");
    if (separator < 1) return null;
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === "t") {
      if (timestamp !== null || !/^\d{1,12}$/.test(value)) return null;
      timestamp = Number(value);
    } else if (key === "v1") {
      if (!/^[0-9a-fA-F]{64}$/.test(value)) return null;
      signatures.push(new Uint8Array(value.match(/../g)!.map((pair) => parseInt(pair, 16))));
    }
  }
  return timestamp !== null && signatures.length > 0 ? { timestamp, signatures } : null;
}

const hmacKey = (secret: string, usage: "sign" | "verify") =>
  crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [usage]);

/** `<t>.` followed by the raw body, as the provider signs it. */
function signedPayload(timestamp: number, body: Uint8Array): Uint8Array {
  const prefix = new TextEncoder().encode(`${timestamp}.`);
  const payload = new Uint8Array(prefix.length + body.length);
  payload.set(prefix);
  payload.set(body, prefix.length);
  return payload;
}

export async function checkBillingSignature(secret: string, header: string | undefined, body: Uint8Array, nowSeconds: number): Promise<BillingSignatureCheck> {
  if (!header) return "missing";
  const parsed = parse(header);
  if (!parsed) return "malformed";
  if (Math.abs(nowSeconds - parsed.timestamp) > TOLERANCE_SECONDS) return "stale";
  const key = await hmacKey(secret, "verify");
  const payload = signedPayload(parsed.timestamp, body);
  for (const signature of parsed.signatures) {
    if (await crypto.subtle.verify("HMAC", key, signature, payload)) return "valid";
  }
  return "mismatch";
}

/** The header the provider would send for `body` (the local fake provider signs with it). */
export async function signBillingBody(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)): Promise<string> {
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(secret, "sign"), signedPayload(timestamp, new TextEncoder().encode(body))));
  return `t=${timestamp},v1=${[...mac].map((byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}
