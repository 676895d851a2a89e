// The issuer's key set as the exchange holds it: cached, fetched again for an unknown key id at most
// once per cooldown, refreshed when old, and bounded in time and size.
import { describe, expect, inject, it } from "vitest";
import { IssuerKeys, KEY_SET_POLICY, type KeySetPolicy } from "../../worker/codehost/jwks";
import { fake } from "../support/codehost";
import { captureLogs, quietly } from "../support/logs";

const T0 = 1_000_000_000_000;
const DEFAULT_KID = "fake-key-1";

/** A key-set address of the fake's that no other test asks for, so its fetches can be counted. */
function keySet(query = "", address = `/_fake/jwks?tag=${crypto.randomUUID()}${query}`) {
  return {
    url: inject("codehostBase") + address,
    fetches: async () => ((await (await fake(`/_fake/requests?address=${encodeURIComponent(address)}`)).json()) as { count: number }).count,
  };
}

const keys = (policy: Partial<KeySetPolicy> = {}) => new IssuerKeys({ ...KEY_SET_POLICY, ...policy });

/** Asks `cache` for the default key, expecting the keys unavailable; answers the warning that says why (the operator's only sign), read rather than printed. */
async function unavailable(cache: IssuerKeys, url: string) {
  const logs = await captureLogs(async () => expect(await cache.find(url, DEFAULT_KID, T0)).toEqual({ ok: false, reason: "keys_unavailable" }));
  const warning = logs.event("codehost.keys_unavailable");
  expect(warning).toMatchObject({ level: "warn", url });
  return warning;
}

describe("the issuer's keys", () => {
  it("are fetched once and then served from memory", async () => {
    const set = keySet();
    const cache = keys();
    expect(await cache.find(set.url, DEFAULT_KID, T0)).toMatchObject({ ok: true, key: { kid: DEFAULT_KID, kty: "RSA" } });
    expect(await cache.find(set.url, DEFAULT_KID, T0 + 60_000)).toMatchObject({ ok: true });
    expect(await set.fetches()).toBe(1);
  });

  it("are fetched again for an unknown key id, but not within the cooldown", async () => {
    const set = keySet();
    const cache = keys();
    await cache.find(set.url, DEFAULT_KID, T0);
    expect(await cache.find(set.url, "unknown", T0 + 1_000)).toEqual({ ok: false, reason: "no_key" });
    expect(await cache.find(set.url, "unknown-too", T0 + 2_000)).toEqual({ ok: false, reason: "no_key" });
    expect(await set.fetches()).toBe(1);
    expect(await cache.find(set.url, "unknown", T0 + KEY_SET_POLICY.cooldownMs + 1)).toEqual({ ok: false, reason: "no_key" });
    expect(await set.fetches()).toBe(2);
  });

  it("find a key the issuer published after they were fetched (rotation)", async () => {
    const set = keySet();
    const cache = keys();
    await cache.find(set.url, DEFAULT_KID, T0);
    const { kid } = (await (await fake("/_fake/oidc/keys", { method: "POST" })).json()) as { kid: string };
    expect(await cache.find(set.url, kid, T0 + KEY_SET_POLICY.cooldownMs)).toMatchObject({ ok: true, key: { kid } });
  });

  it("are fetched again once older than the maximum age", async () => {
    const set = keySet();
    const cache = keys();
    await cache.find(set.url, DEFAULT_KID, T0);
    await cache.find(set.url, DEFAULT_KID, T0 + KEY_SET_POLICY.maxAgeMs + 1);
    expect(await set.fetches()).toBe(2);
  });

  it("are unavailable when the issuer answers an error, too slowly, or too much", async () => {
    const missing = keySet("", `/_fake/no-such-key-set/${crypto.randomUUID()}`).url;
    expect(await unavailable(keys(), missing)).toMatchObject({ status: 404 });
    expect(await unavailable(keys({ timeoutMs: 200 }), keySet("&delay_ms=2000").url)).toMatchObject({ errorName: "TimeoutError" });
    await unavailable(keys({ maxBytes: 4096 }), keySet("&pad_bytes=8192").url);
  });

  it("are read as they stream, with no declared length, and not past the size limit", async () => {
    expect(await keys().find(keySet("&stream_pad_bytes=1024").url, DEFAULT_KID, T0)).toMatchObject({ ok: true, key: { kid: DEFAULT_KID } });
    // A body without end: the reader stops at the limit; the fake counts what it had to send (what sits in buffers between them aside).
    const tag = crypto.randomUUID();
    expect(await unavailable(keys({ timeoutMs: 600_000 }), keySet("", `/_fake/jwks?tag=${tag}&stream_pad_bytes=${2 ** 50}`).url)).toMatchObject({
      overBytes: KEY_SET_POLICY.maxBytes,
    });
    const { bytes } = (await (await fake(`/_fake/jwks/streamed?tag=${tag}`)).json()) as { bytes: number };
    expect(bytes).toBeGreaterThan(KEY_SET_POLICY.maxBytes);
    expect(bytes).toBeLessThan(8 * 1024 * 1024);
    expect(await unavailable(keys({ maxBytes: 4096, timeoutMs: 600_000 }), keySet("&stream_pad_bytes=8192").url)).toMatchObject({ overBytes: 4096 });
  });

  it("ask an unavailable issuer again only after the cooldown", async () => {
    const set = keySet("", `/_fake/no-such-key-set/${crypto.randomUUID()}`);
    const cache = keys();
    // Each failed fetch's warning is not what this test reads: the fetches are.
    await quietly(() => cache.find(set.url, DEFAULT_KID, T0));
    await cache.find(set.url, DEFAULT_KID, T0 + 1_000);
    expect(await set.fetches()).toBe(1);
    await quietly(() => cache.find(set.url, DEFAULT_KID, T0 + KEY_SET_POLICY.cooldownMs));
    expect(await set.fetches()).toBe(2);
  });
});
