// Acting as the App: a short RS256 JWT whose issuer is the App id, signed with the App's private key.
// Code-host App keys come as PKCS#1 (`BEGIN RSA PRIVATE KEY`), which Web Crypto cannot import, so
// they are wrapped into PKCS#8 (`BEGIN PRIVATE KEY`); PKCS#8 keys are taken as they are.
import { SignJWT } from "jose";
import type { CodehostApp } from "../config/types";

// AlgorithmIdentifier { rsaEncryption (1.2.840.113549.1.1.1), NULL }
const RSA_ENCRYPTION = [0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00];

function derLength(length: number): number[] {
  if (length < 0x80) return [length];
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return [0x80 | bytes.length, ...bytes];
}

/** PrivateKeyInfo { version 0, rsaEncryption, OCTET STRING <the PKCS#1 key> }. */
function pkcs1ToPkcs8(pkcs1: Uint8Array): Uint8Array<ArrayBuffer> {
  const body = [0x02, 0x01, 0x00, ...RSA_ENCRYPTION, 0x04, ...derLength(pkcs1.length)];
  const head = [0x30, ...derLength(body.length + pkcs1.length), ...body];
  const der = new Uint8Array(head.length + pkcs1.length);
  der.set(head);
  der.set(pkcs1, head.length);
  return der;
}

function pemToPkcs8(pem: string): Uint8Array<ArrayBuffer> {
  const label = /-----BEGIN ([A-Z ]+)-----/.exec(pem)?.[1];
  const base64 = pem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
  const der = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
  if (label === "RSA PRIVATE KEY") return pkcs1ToPkcs8(der);
  if (label === "PRIVATE KEY") return der;
  throw new Error(`an App private key must be an RSA key, not ${label ?? "unlabelled"}`);
}

// Imported keys hold no I/O, so one import serves every request of the isolate.
const imported = new Map<string, CryptoKey>();

async function signingKey(pem: string): Promise<CryptoKey> {
  const known = imported.get(pem);
  if (known) return known;
  const key = await crypto.subtle.importKey("pkcs8", pemToPkcs8(pem), { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["sign"]);
  imported.set(pem, key);
  return key;
}

/** Valid about nine minutes; issued a minute in the past, as the code host advises, for clock drift. */
export async function appJwt(app: CodehostApp, now = Date.now()): Promise<string> {
  const seconds = Math.floor(now / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: "RS256", typ: "JWT" })
    .setIssuer(app.appId)
    .setIssuedAt(seconds - 60)
    .setExpirationTime(seconds + 540)
    .sign(await signingKey(app.privateKeyPem));
}
