// Keys that seal stored model-provider keys. Every configured key can open; one version seals.
import { readEntries, readKey32, type EnvReader } from "./readers";
import type { SealingKeys } from "./types";

const VERSION = /^[a-z0-9._-]{1,32}$/;
const SINGLE_KEY_VERSION = "v1";

export function readSealingKeys(r: EnvReader): SealingKeys | null {
  // Keys are compared by their base64 text: canonical base64 gives one spelling per key.
  const texts = new Map<string, string>();
  const keys = new Map<string, Uint8Array>();

  const single = r.text("SVC_PROVIDER_KEY_SECRET");
  const singleKey = single === undefined ? null : readKey32(r, "SVC_PROVIDER_KEY_SECRET", single);
  if (single !== undefined && singleKey !== null) {
    texts.set(SINGLE_KEY_VERSION, single);
    keys.set(SINGLE_KEY_VERSION, singleKey);
  }

  for (const [version, text] of readEntries(r, "SVC_PROVIDER_KEY_SECRETS", "<version>=<base64 32 bytes>") ?? []) {
    if (!VERSION.test(version)) {
      r.refuse(
        "SVC_PROVIDER_KEY_SECRETS",
        `SVC_PROVIDER_KEY_SECRETS version "${version}" must be 1 to 32 lower-case letters, digits, dots, dashes or underscores.`,
      );
      continue;
    }
    const key = readKey32(r, "SVC_PROVIDER_KEY_SECRETS", text, `SVC_PROVIDER_KEY_SECRETS version "${version}"`);
    if (key === null) continue;
    if (texts.has(version) && texts.get(version) !== text) {
      r.refuse("SVC_PROVIDER_KEY_SECRETS", `SVC_PROVIDER_KEY_SECRETS gives version "${version}" a different key than SVC_PROVIDER_KEY_SECRET.`);
      continue;
    }
    texts.set(version, text);
    keys.set(version, key);
  }

  const sealingVersion = chooseSealingVersion(r, [...keys.keys()]);
  return sealingVersion === null ? null : { keys, sealingVersion };
}

function chooseSealingVersion(r: EnvReader, versions: string[]): string | null {
  const chosen = r.text("SVC_PROVIDER_KEY_VERSION");
  if (chosen === undefined) {
    if (versions.length > 1) {
      r.refuseUnset("SVC_PROVIDER_KEY_VERSION", ` when several sealing keys are configured (versions ${versions.join(", ")})`);
      return null;
    }
    return versions[0] ?? null;
  }
  if (versions.includes(chosen)) return chosen;
  // A refused key is absent from `versions`; its own error already explains the mismatch.
  if (r.errors.some((error) => error.variable.startsWith("SVC_PROVIDER_KEY_SECRET"))) return null;
  r.refuse(
    "SVC_PROVIDER_KEY_VERSION",
    `SVC_PROVIDER_KEY_VERSION names version "${chosen}", which has no key in SVC_PROVIDER_KEY_SECRET or SVC_PROVIDER_KEY_SECRETS.`,
  );
  return null;
}
