// Sealed provider keys: a round trip, a sealed key that will not open anywhere but its own row,
// rotation (every configured version opens, the chosen one seals) and re-sealing as the re-seal
// role, which reaches the provider-key table and nothing else.
import Anthropic from "@anthropic-ai/sdk";
import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { openPool, useBridge } from "../../db/neon";
import type { SealingKeys } from "../../worker/config/types";
import { resealAll } from "../../worker/providers/reseal";
import { seal, SealedKeyUnreadable, unseal } from "../../worker/providers/sealing";
import { asRole } from "../support/sql";
import { fakeCalls, PROXY, proxyEnv, SEALING_KEY_V1, SEALING_KEY_V2, seedProviderOrg, uniqueKey, workerFetch } from "../support/providers";

const bytes = (base64: string) => Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
const ONLY_V1: SealingKeys = { keys: new Map([["v1", bytes(SEALING_KEY_V1)]]), sealingVersion: "v1" };
const BOTH_SEAL_V2: SealingKeys = {
  keys: new Map([
    ["v1", bytes(SEALING_KEY_V1)],
    ["v2", bytes(SEALING_KEY_V2)],
  ]),
  sealingVersion: "v2",
};
const ROTATED = { SVC_PROVIDER_KEY_SECRETS: `v2=${SEALING_KEY_V2}`, SVC_PROVIDER_KEY_VERSION: "v2" };
const ONLY_V2 = { SVC_PROVIDER_KEY_SECRET: undefined, SVC_PROVIDER_KEY_SECRETS: `v2=${SEALING_KEY_V2}` };

const binding = { keyId: crypto.randomUUID(), orgId: crypto.randomUUID(), provider: "chat-provider" as const };

describe("sealing", () => {
  it("opens what it sealed, with a fresh nonce each time", async () => {
    const first = await seal(ONLY_V1, binding, "sk-round-trip");
    const second = await seal(ONLY_V1, binding, "sk-round-trip");
    expect(first.version).toBe("v1");
    expect(first.nonce).not.toEqual(second.nonce);
    expect(await unseal(ONLY_V1, binding, first)).toBe("sk-round-trip");
  });

  it("does not open for another organization, provider or row, nor without its version's key", async () => {
    const sealed = await seal(ONLY_V1, binding, "sk-bound");
    for (const elsewhere of [
      { ...binding, orgId: crypto.randomUUID() },
      { ...binding, provider: "messages-provider" as const },
      { ...binding, keyId: crypto.randomUUID() },
    ]) {
      await expect(unseal(ONLY_V1, elsewhere, sealed)).rejects.toMatchObject({ reason: "does_not_open" });
    }
    const v2Only: SealingKeys = { keys: new Map([["v2", bytes(SEALING_KEY_V2)]]), sealingVersion: "v2" };
    await expect(unseal(v2Only, binding, sealed)).rejects.toBeInstanceOf(SealedKeyUnreadable);
  });
});

const ask = (token: string, env: Record<string, string | undefined>) =>
  workerFetch(env).fetch(`${PROXY}/messages-provider/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": token, "content-type": "application/json" },
    body: JSON.stringify({ model: "claude-haiku-4-5", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
  });

describe("a stored key in the database", () => {
  it("copied into another organization's row does not open there: refused, nothing forwarded", async () => {
    const victim = await seedProviderOrg({ keys: { "messages-provider": uniqueKey("messages") } });
    const thief = await seedProviderOrg({ keys: { "messages-provider": uniqueKey("messages") }, budgets: { "messages-provider": 5 } });
    await asRole("superuser", (client) =>
      client.query(
        `UPDATE provider_keys t SET nonce = v.nonce, ciphertext = v.ciphertext FROM provider_keys v
         WHERE v.org_id = $1 AND v.revoked_at IS NULL AND t.org_id = $2 AND t.revoked_at IS NULL`,
        [victim.orgId, thief.orgId],
      ),
    );
    const response = await ask(thief.engine, proxyEnv());
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ error: expect.stringMatching(/does not open here/) });
    // Tampered rows would only be counted as unreadable by every later re-seal.
    await asRole("superuser", (client) => client.query("DELETE FROM provider_keys WHERE org_id = $1", [thief.orgId]));
  });
});

describe("rotation", () => {
  it("opens keys sealed under an older version while the new one seals; re-sealing moves them; then the old key can go", async () => {
    const oldKey = uniqueKey("messages");
    const org = await seedProviderOrg({ keys: { "messages-provider": oldKey }, budgets: { "messages-provider": 5 } });
    // Deployed with both keys, sealing v2: the v1 key still opens, a new key seals under v2.
    expect((await ask(org.engine, proxyEnv(ROTATED))).status).toBe(200);
    expect(await fakeCalls("messages", oldKey)).toHaveLength(1);
    // Before re-sealing, dropping v1 would strand the key.
    expect((await ask(org.engine, proxyEnv(ONLY_V2))).status).toBe(503);

    const database = inject("database");
    useBridge(database.bridge);
    const pool = openPool(database.reseal, "svc_reseal", 2);
    try {
      const batches: number[] = [];
      const report = await resealAll(pool.connect, BOTH_SEAL_V2, { batchSize: 1, onBatch: (batch) => batches.push(batch.resealed) });
      // Other tests' keys (every organization's) are re-sealed too, one committed batch at a time.
      expect(report.resealed).toBeGreaterThanOrEqual(1);
      expect(batches.every((count) => count <= 1)).toBe(true);
    } finally {
      await pool.end();
    }
    const row = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT key_version, resealed_at FROM provider_keys WHERE org_id = $1", [org.orgId])).rows[0],
    );
    expect(row).toMatchObject({ key_version: "v2", resealed_at: expect.any(Date) });
    expect((await ask(org.engine, proxyEnv(ONLY_V2))).status).toBe(200);
    expect(await fakeCalls("messages", oldKey)).toHaveLength(2);
  });

  it("the re-seal role reads every organization's sealed keys and nothing else", async () => {
    await seedProviderOrg({ keys: { "chat-provider": uniqueKey("chat") } });
    await asRole("reseal", async (client) => {
      const { rows } = await client.query("SELECT count(DISTINCT org_id)::int AS orgs FROM provider_keys");
      expect(rows[0].orgs).toBeGreaterThanOrEqual(1);
      for (const query of [
        "SELECT 1 FROM organizations LIMIT 1",
        "SELECT 1 FROM tokens LIMIT 1",
        "SELECT 1 FROM provider_spend LIMIT 1",
        "SELECT last_four FROM provider_keys LIMIT 1",
      ]) {
        await expect(client.query(query)).rejects.toThrow(/permission denied/);
      }
      await expect(client.query("DELETE FROM provider_keys")).rejects.toThrow(/permission denied/);
    });
  });
});

// The SDK sends the token as a bearer; the proxy takes it from either header.
describe("the messages SDK after rotation", () => {
  it("still gets answers", async () => {
    const org = await seedProviderOrg({ keys: { "messages-provider": uniqueKey("messages") }, budgets: { "messages-provider": 5 } });
    const client = new Anthropic({ apiKey: org.engine, baseURL: `${PROXY}/messages-provider`, fetch: workerFetch(proxyEnv(ROTATED)).fetch, maxRetries: 0 });
    const answer = await client.messages.create({ model: "claude-haiku-4-5", max_tokens: 8, messages: [{ role: "user", content: "hi" }] });
    expect(answer.type).toBe("message");
  });
});
