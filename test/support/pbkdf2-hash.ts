// Pure, so the Node tests (password.node.ts) and the portal tests inside workerd share it.
/** A hash as this service stored it before argon2id: PBKDF2-SHA-256 through Web Crypto. */
export async function pbkdf2Hash(password: string, iterations = 100_000): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, 256);
  const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
  return `pbkdf2-sha256$${iterations}$${base64(salt)}$${base64(new Uint8Array(bits))}`;
}
