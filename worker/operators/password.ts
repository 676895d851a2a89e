// Operator passwords: argon2id, OWASP's first choice for password storage, at its minimum of
// m = 19 MiB, t = 2, p = 1 (inside a Worker isolate's 128 MB), a fresh 16-byte salt per password,
// stored in the PHC string format (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`, unpadded base64)
// so the stored value names its own algorithm and parameters, and compared in constant time. Pure
// JavaScript (@noble/hashes): workerd refuses WebAssembly compiled at run time and Web Crypto has no
// memory-hard function. Hashes made before (PBKDF2-SHA-256 at 100,000 iterations,
// `pbkdf2-sha256$<iterations>$<salt>$<hash>`) still verify, and are replaced at the operator's next
// sign-in (`needsRehash`). The same code runs in the Worker (sign-in) and in Node (`svc admin`).
import { argon2id } from "@noble/hashes/argon2.js";
import { constantTimeEqual } from "../http/constant-time";

export const ARGON2 = { m: 19_456, t: 2, p: 1 } as const;
export const MIN_PASSWORD_LENGTH = 12;
const SALT_BYTES = 16;
const HASH_BYTES = 32;
const VERSION = 19;
/** Stored parameters above these are refused unhashed: a hash never costs more than a sign-in can spend. */
const MOST = { m: 65_536, t: 10, p: 4 };
const PBKDF2_ITERATIONS = 100_000;

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/=+$/, "");
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
/** Unpadded base64 of whole bytes (no length of 1 modulo 4, which atob throws on). */
const UNPADDED = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2,3})?$/;

const phc = (params: { m: number; t: number; p: number }, salt: Uint8Array, hash: Uint8Array) =>
  `$argon2id$v=${VERSION}$m=${params.m},t=${params.t},p=${params.p}$${toBase64(salt)}$${toBase64(hash)}`;

const ARGON2_PHC = /^\$argon2id\$v=19\$m=(\d{1,6}),t=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{11,64})\$([A-Za-z0-9+/]{22,128})$/;

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  return phc(ARGON2, salt, argon2id(password, salt, { ...ARGON2, dkLen: HASH_BYTES }));
}

async function verifyPbkdf2(password: string, iterations: string, salt: string, hash: string): Promise<boolean> {
  const rounds = Number(iterations);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > PBKDF2_ITERATIONS) return false;
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: fromBase64(salt), iterations: rounds }, key, 256);
  return constantTimeEqual(btoa(String.fromCharCode(...new Uint8Array(bits))), hash);
}

/** Whether `password` is the one `stored` was made from; a malformed stored value matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const argon = ARGON2_PHC.exec(stored);
  if (argon) {
    const [m, t, p] = [Number(argon[1]), Number(argon[2]), Number(argon[3])];
    const [salt, hash] = [argon[4]!, argon[5]!];
    if (t < 1 || p < 1 || m < 8 * p || m > MOST.m || t > MOST.t || p > MOST.p || !UNPADDED.test(salt) || !UNPADDED.test(hash)) return false;
    const derived = argon2id(password, fromBase64(salt), { m, t, p, dkLen: fromBase64(hash).length });
    return constantTimeEqual(toBase64(derived), hash);
  }
  const [scheme, iterations, salt, hash, ...rest] = stored.split("$");
  if (scheme === "pbkdf2-sha256" && iterations && salt && hash && rest.length === 0) return verifyPbkdf2(password, iterations, salt, hash);
  return false;
}

/** Whether a stored value that verified should be replaced by one made with today's algorithm and parameters. */
export function needsRehash(stored: string): boolean {
  const argon = ARGON2_PHC.exec(stored);
  return !argon || Number(argon[1]) !== ARGON2.m || Number(argon[2]) !== ARGON2.t || Number(argon[3]) !== ARGON2.p;
}

/** A stored value no password matches: verified against when the login is unknown, so both cost the same. */
export const UNKNOWN_LOGIN_HASH = phc(ARGON2, new Uint8Array(SALT_BYTES), new Uint8Array(HASH_BYTES));

/** Why a new password is refused, or null: at least 12 characters, no leading or trailing whitespace. */
export function passwordProblem(password: string): string | null {
  if (password.trim() !== password) return "The password must not begin or end with whitespace.";
  if ([...password].length < MIN_PASSWORD_LENGTH) return `The password must be at least ${MIN_PASSWORD_LENGTH} characters long.`;
  return null;
}

export const OPERATOR_LOGIN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * A login as the database compares it (`lower(login)`, over logins its check constraint holds to
 * OPERATOR_LOGIN's ASCII): the same value keys the per-login rate limit and is the query's parameter.
 * Null for text no operator's login can be.
 */
export const foldLogin = (login: string): string | null => (OPERATOR_LOGIN.test(login) ? login.toLowerCase() : null);
