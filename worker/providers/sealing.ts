// Provider keys at rest: AES-256-GCM through WebCrypto, a fresh 12-byte nonce per seal, the sealing
// key's version stored beside the ciphertext, and the organization, provider and row bound as
// additional data, so a sealed key copied to another row or organization does not open.
import type { SealingKeys } from "../config/types";
import type { Provider } from "./names";

export interface Sealed {
  version: string;
  nonce: Uint8Array;
  ciphertext: Uint8Array;
}

/** Where a sealed key belongs: it opens only there. */
export interface KeyBinding {
  keyId: string;
  orgId: string;
  provider: Provider;
}

export class SealedKeyUnreadable extends Error {
  override readonly name = "SealedKeyUnreadable";
  constructor(
    readonly reason: "version_missing" | "does_not_open",
    message: string,
  ) {
    super(message);
  }
}

const additionalData = ({ keyId, orgId, provider }: KeyBinding) => new TextEncoder().encode(`provider-key\n${orgId}\n${provider}\n${keyId}`);

// WebCrypto takes bytes over a plain ArrayBuffer (the DOM's BufferSource, which the console's type check
// of the router applies); bytes read from the database or configuration may sit on any buffer.
const plain = (bytes: Uint8Array) => new Uint8Array(bytes);

const aesKey = (raw: Uint8Array, use: "encrypt" | "decrypt") => crypto.subtle.importKey("raw", plain(raw), "AES-GCM", false, [use]);

/** Seals under the configured sealing version. */
export async function seal(keys: SealingKeys, binding: KeyBinding, plaintext: string): Promise<Sealed> {
  const nonce = crypto.getRandomValues(new Uint8Array(12));
  const key = await aesKey(keys.keys.get(keys.sealingVersion)!, "encrypt");
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce, additionalData: additionalData(binding) }, key, new TextEncoder().encode(plaintext));
  return { version: keys.sealingVersion, nonce, ciphertext: new Uint8Array(sealed) };
}

/** Opens with whichever configured key sealed it; refuses a missing version or a value bound elsewhere. */
export async function unseal(keys: SealingKeys | null, binding: KeyBinding, sealed: Sealed): Promise<string> {
  const raw = keys?.keys.get(sealed.version);
  if (!raw) {
    throw new SealedKeyUnreadable(
      "version_missing",
      `The ${binding.provider} key was sealed under version "${sealed.version}", which SVC_PROVIDER_KEY_SECRET / SVC_PROVIDER_KEY_SECRETS no longer hold.`,
    );
  }
  try {
    const opened = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: plain(sealed.nonce), additionalData: additionalData(binding) },
      await aesKey(raw, "decrypt"),
      plain(sealed.ciphertext),
    );
    return new TextDecoder().decode(opened);
  } catch {
    throw new SealedKeyUnreadable(
      "does_not_open",
      `The stored ${binding.provider} key does not open here: it was sealed for another organization, provider or row, or altered.`,
    );
  }
}
