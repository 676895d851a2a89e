// The licence's signature, checked with jose (WebCrypto is asynchronous, so this runs after the
// synchronous parse): at isolate start (worker/index.ts awaits it before serving) and by
// `svc config check`, both refusing with exit status 2 when it does not verify.
import { compactVerify, importJWK } from "jose";
import type { Config, Licence } from "./types";

const checked = new WeakMap<object, Promise<string | null>>();

/** Null when the licence is absent or its signature verifies; otherwise the sentence saying why not. */
export function licenceSignatureProblem(config: Config): Promise<string | null> {
  const licence = config.enterprise?.licence;
  if (licence === undefined || licence.state === "none") return Promise.resolve(null);
  let known = checked.get(licence);
  if (!known) checked.set(licence, (known = verify(licence)));
  return known;
}

async function verify(licence: Exclude<Licence, { state: "none" }>): Promise<string | null> {
  const refused = `SVC_LICENSE_KEY's signature does not verify under the SVC_LICENSE_PUBLIC_KEYS key "${licence.token.header.kid}".`;
  try {
    const x = licence.publicKey.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
    const key = await importJWK({ kty: "OKP", crv: "Ed25519", x }, "EdDSA");
    await compactVerify(licence.token.compact, key, { algorithms: ["EdDSA"] });
    return null;
  } catch {
    return refused;
  }
}
