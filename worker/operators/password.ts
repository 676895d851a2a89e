// Operator passwords: PBKDF2-SHA-256 at the Workers runtime's maximum iteration count (100,000:
// Cloudflare's runtime refuses more; the open-source workerd used locally sets no limit, see
// cloudflare/workerd#1471), a fresh 16-byte salt per password, stored as
// `pbkdf2-sha256$<iterations>$<salt>$<hash>` (base64) and compared in constant time. The same code
// runs in the Worker (sign-in) and in Node (the `svc admin` commands).
import { constantTimeEqual } from "../http/constant-time";

export const PBKDF2_ITERATIONS = 100_000;
export const MIN_PASSWORD_LENGTH = 12;
const SALT_BYTES = 16;
const HASH_BITS = 256;
const SCHEME = "pbkdf2-sha256";

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (char) => char.charCodeAt(0));

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, HASH_BITS);
  return new Uint8Array(bits);
}

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  return `${SCHEME}$${PBKDF2_ITERATIONS}$${toBase64(salt)}$${toBase64(await derive(password, salt, PBKDF2_ITERATIONS))}`;
}

/** Whether `password` is the one `stored` was made from; a malformed stored value matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iterations, salt, hash] = stored.split("$");
  const rounds = Number(iterations);
  if (scheme !== SCHEME || !salt || !hash || !Number.isInteger(rounds) || rounds < 1 || rounds > PBKDF2_ITERATIONS) return false;
  const derived = toBase64(await derive(password, fromBase64(salt), rounds));
  return constantTimeEqual(derived, hash);
}

/** A stored value no password matches: verified against when the login is unknown, so both cost the same. */
export const UNKNOWN_LOGIN_HASH = `${SCHEME}$${PBKDF2_ITERATIONS}$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=`;

/** Why a new password is refused, or null: at least 12 characters, no leading or trailing whitespace. */
export function passwordProblem(password: string): string | null {
  if (password.trim() !== password) return "The password must not begin or end with whitespace.";
  if ([...password].length < MIN_PASSWORD_LENGTH) return `The password must be at least ${MIN_PASSWORD_LENGTH} characters long.`;
  return null;
}

export const OPERATOR_LOGIN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
