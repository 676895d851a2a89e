// Webhook signatures as the code host makes them: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the
// raw body>`. Web Crypto only, so the Worker, the tests (workerd) and the test fake (Node) share it.

export const SIGNATURE_HEADER = "x-hub-signature-256";
const SHAPE = /^sha256=([0-9a-fA-F]{64})$/;

const hmacKey = (secret: string, usage: "sign" | "verify") =>
  crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [usage]);

const bytesOf = (body: string | Uint8Array) => (typeof body === "string" ? new TextEncoder().encode(body) : body);

/** The header value for `body`, as the code host would send it. */
export async function signWebhookBody(secret: string, body: string | Uint8Array): Promise<string> {
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(secret, "sign"), bytesOf(body)));
  return `sha256=${[...mac].map((byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

export type SignatureCheck = "valid" | "missing" | "malformed" | "mismatch";

/** The header's shape first (so a wrong length is an answer, not an exception), then a constant-time comparison. */
export async function checkWebhookSignature(secret: string, header: string | undefined, body: Uint8Array): Promise<SignatureCheck> {
  if (!header) return "missing";
  const hex = SHAPE.exec(header.trim())?.[1];
  if (!hex) return "malformed";
  const mac = new Uint8Array(hex.match(/../g)!.map((pair) => parseInt(pair, 16)));
  // Web Crypto's HMAC verify compares in constant time.
  return (await crypto.subtle.verify("HMAC", await hmacKey(secret, "verify"), mac, body)) ? "valid" : "mismatch";
}
