// Hashing a presented secret and writing bytes as URL-safe text: what the plumbing needs of secrets
// (a session's look-up, a page's script nonce, a failure's fingerprint) without the tokens capability.
// Only the SHA-256 hash of a secret is stored; look-ups go by hash, so a stored value never has to be
// compared with the secret itself.

export function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

export async function sha256Hex(input: string | Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", typeof input === "string" ? new TextEncoder().encode(input) : input);
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** What is stored of a secret value. */
export const hashToken = sha256Hex;
