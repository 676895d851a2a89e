// Minting licences: an Ed25519 key pair and a compact JWS the Worker's parser and verifier accept.
// No Node imports, so the tests run the same functions inside workerd.
import { CompactSign, exportJWK, exportPKCS8, generateKeyPair, importPKCS8 } from "jose";

export interface LicenceClaims {
  /** Licence id (`lid`): what SVC_LICENSE_REVOKED names. */
  id: string;
  /** The organization it is issued to (`sub`), compared with SVC_ORG. */
  org: string;
  /** Unix seconds. */
  expiresAt: number;
  /** Seconds after expiry it keeps working. */
  graceSeconds: number;
  features: string[];
}

const toBase64 = (base64url: string) =>
  base64url
    .replaceAll("-", "+")
    .replaceAll("_", "/")
    .padEnd(Math.ceil(base64url.length / 4) * 4, "=");

/** A new key pair: the private key as a PKCS#8 PEM (keep it secret), the public one as SVC_LICENSE_PUBLIC_KEYS wants it. */
export async function licenceKeyPair(): Promise<{ privateKeyPem: string; publicKey: string }> {
  const { privateKey, publicKey } = await generateKeyPair("EdDSA", { extractable: true });
  const jwk = await exportJWK(publicKey);
  return { privateKeyPem: await exportPKCS8(privateKey), publicKey: toBase64(jwk.x!) };
}

/** The public key (base64 of its 32 raw bytes) of a PKCS#8 PEM private key. */
export async function licencePublicKey(privateKeyPem: string): Promise<string> {
  const key = await importPKCS8(privateKeyPem, "EdDSA", { extractable: true });
  const jwk = await exportJWK(key);
  return toBase64(jwk.x!);
}

/** SVC_LICENSE_KEY: a compact JWS with header `{alg: EdDSA, kid}`. */
export async function mintLicence(privateKeyPem: string, kid: string, claims: LicenceClaims): Promise<string> {
  const key = await importPKCS8(privateKeyPem, "EdDSA");
  const payload = {
    lid: claims.id,
    sub: claims.org,
    iat: Math.floor(Date.now() / 1000),
    exp: claims.expiresAt,
    grace: claims.graceSeconds,
    features: claims.features,
  };
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg: "EdDSA", kid }).sign(key);
}
