// The App's JWT: RS256 by the App's key, issuer the App id, short; PKCS#1 keys (as the code host hands
// them out) and PKCS#8 keys alike.
import { env } from "cloudflare:workers";
import { decodeJwt, importJWK, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { appJwt } from "../../worker/codehost/app-jwt";
import { configFor } from "../../worker/config/for-env";
import { fake } from "../support/codehost";

const pem = (label: string, der: ArrayBuffer) =>
  `-----BEGIN ${label}-----\n${btoa(String.fromCharCode(...new Uint8Array(der)))
    .match(/.{1,64}/g)!
    .join("\n")}\n-----END ${label}-----\n`;

describe("the App JWT", () => {
  it("from the configured PKCS#1 key is accepted by the code host for an installation token", async () => {
    const app = configFor(env).codehost.app!;
    expect(app.privateKeyPem).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    const grant = (bearer?: string) => fake("/app/installations/12345/access_tokens", { method: "POST", ...(bearer ? { bearer } : {}) });
    expect((await grant()).status).toBe(401);
    expect((await grant(await appJwt({ ...app, appId: "1" }))).status).toBe(401);
    expect((await grant(await appJwt(app))).status).toBe(201);
  });

  it("from a PKCS#8 key verifies with its public key, names the App as issuer and lasts at most ten minutes", async () => {
    const pair = (await crypto.subtle.generateKey(
      { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
      true,
      ["sign", "verify"],
    )) as CryptoKeyPair;
    const privateKeyPem = pem("PRIVATE KEY", (await crypto.subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer);
    const jwt = await appJwt({ appId: "777", privateKeyPem, webhookSecret: "unused" });
    const publicKey = await importJWK((await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey & { kty: string }, "RS256");
    const { payload, protectedHeader } = await jwtVerify(jwt, publicKey, { issuer: "777", algorithms: ["RS256"] });
    expect(protectedHeader.alg).toBe("RS256");
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(600);
    expect(payload.iat!).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(decodeJwt(jwt).iss).toBe("777");
  });
});
