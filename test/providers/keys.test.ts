// Provider keys and budgets on both surfaces: the console's (session, CSRF, orgId) and the CLI's
// (bearer), which never accept each other's scheme. Keys are sealed at rest and never shown beyond
// their last four characters.
import { describe, expect, it } from "vitest";
import { seedToken } from "../support/seed";
import { seedPerson, seedSession, browser } from "../support/sessions";
import { asRole } from "../support/sql";
import { rpcClient, rpcGet } from "../support/rpc";
import { BASE } from "../support/http";
import { billingOn } from "../support/billing";
import { PROXY, proxyEnv, seedProviderOrg, uniqueKey, workerFetch } from "../support/providers";
import { statusAndCode } from "../support/refusals";

const json = (body: unknown) => ({ "content-type": "application/json", body: JSON.stringify(body) });

async function cliCall(token: string, method: string, path: string, body?: unknown, env = proxyEnv()) {
  return workerFetch(env).fetch(`${BASE}/v1/providers${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe("the console's provider routes", () => {
  it("seal and store a key, show its last four characters at most, and revoke it", async () => {
    const org = await seedProviderOrg();
    const key = uniqueKey("chat");
    const stored = await org.consoleApi("PUT", "/chat-provider", { key });
    expect(stored.status).toBe(200);
    expect(await stored.json()).toEqual({
      provider: "chat-provider",
      key: { lastFour: key.slice(-4), sealedUnder: "v1", createdAt: expect.any(String) },
      replaced: false,
    });

    const listed = (await (await org.consoleApi("GET", "")).json()) as { providers: unknown[] };
    expect(listed).toEqual({
      providers: [
        { provider: "messages-provider", key: null, budget: null },
        { provider: "chat-provider", key: { lastFour: key.slice(-4), sealedUnder: "v1", createdAt: expect.any(String) }, budget: null },
      ],
    });
    expect(JSON.stringify(listed)).not.toContain(key.slice(0, -4));

    // At rest: ciphertext, a 12-byte nonce and the version; the key's text appears nowhere in the row.
    const row = await asRole(
      "superuser",
      async (client) =>
        (
          await client.query(
            "SELECT key_version, length(nonce) AS nonce_bytes, position(convert_to($2, 'UTF8') IN ciphertext) AS found, last_four FROM provider_keys WHERE org_id = $1",
            [org.orgId, key.slice(0, 12)],
          )
        ).rows[0],
    );
    expect(row).toEqual({ key_version: "v1", nonce_bytes: 12, found: 0, last_four: key.slice(-4) });

    // A second key replaces the first.
    expect(await (await org.consoleApi("PUT", "/chat-provider", { key: uniqueKey("chat") })).json()).toMatchObject({ replaced: true });
    expect((await org.consoleApi("DELETE", "/chat-provider")).status).toBe(200);
    expect(statusAndCode(await org.consoleApi("DELETE", "/chat-provider"))).toEqual([404, "not_found"]);
    expect(((await (await org.consoleApi("GET", "")).json()) as { providers: Array<{ key: unknown }> }).providers[1]!.key).toBeNull();

    const audit = await asRole(
      "superuser",
      async (client) =>
        (await client.query("SELECT action, data FROM audit_log WHERE org_id = $1 AND action LIKE 'provider_%' ORDER BY seq", [org.orgId])).rows,
    );
    expect(audit.map((entry: { action: string }) => entry.action)).toEqual(["provider_key.stored", "provider_key.stored", "provider_key.revoked"]);
    expect(JSON.stringify(audit)).not.toContain(key);
  });

  it("set the monthly budget (billing.manage: owners only)", async () => {
    const org = await seedProviderOrg();
    const set = await org.consoleApi("PUT", "/messages-provider/budget", { monthlyCapUsd: 12.5 });
    expect(set.status).toBe(200);
    expect(await set.json()).toEqual({
      provider: "messages-provider",
      budget: { monthlyCapUsd: 12.5, month: expect.stringMatching(/^\d{4}-\d{2}$/), spentUsd: 0, reservedUsd: 0, overrunUsd: 0 },
    });
    expect((await org.consoleApi("PUT", "/messages-provider/budget", { monthlyCapUsd: -1 })).status).toBe(400);

    const admin = await seedSession(await seedPerson(`byok-admin-${crypto.randomUUID().slice(0, 6)}`, [{ orgId: org.orgId, role: "admin" }]));
    const adminCall = async (method: string, path: string, body: unknown) =>
      workerFetch().fetch(`${BASE}/console/api/providers${path}?orgId=${org.orgId}`, {
        method,
        headers: { cookie: `svc_session=${admin}`, "x-svc-csrf": await browser(admin).csrf(), ...json(body) },
        ...json(body),
      });
    expect(statusAndCode(await adminCall("PUT", "/messages-provider/budget", { monthlyCapUsd: 100 }))).toEqual([403, "forbidden"]);
    expect((await adminCall("PUT", "/messages-provider", { key: uniqueKey("messages") })).status).toBe(200);
  });

  it("refuse storing a key when no sealing key is configured, naming the variable (503)", async () => {
    const org = await seedProviderOrg({ env: proxyEnv({ SVC_PROVIDER_KEY_SECRET: undefined }) });
    const response = await org.consoleApi("PUT", "/chat-provider", { key: uniqueKey("chat") });
    expect(response.status).toBe(503);
    expect(response.headers.get("x-svc-error-code")).toBe("sealing_key_missing");
    expect(await response.json()).toEqual({ error: expect.stringContaining("SVC_PROVIDER_KEY_SECRET") });
  });

  it("refuse what the session may not do: no CSRF header, a member's role, another organization, an unknown provider, a bearer token", async () => {
    const org = await seedProviderOrg();
    const other = await seedProviderOrg();
    const send = (init: RequestInit, path = `/chat-provider?orgId=${org.orgId}`) => workerFetch().fetch(`${BASE}/console/api/providers${path}`, init);
    const body = json({ key: uniqueKey("chat") });
    expect((await send({ method: "PUT", headers: { cookie: `svc_session=${org.session}`, "content-type": "application/json" }, body: body.body })).status).toBe(
      403,
    );
    const member = await seedSession(await seedPerson(`byok-member-${crypto.randomUUID().slice(0, 6)}`, [{ orgId: org.orgId, role: "member" }]));
    expect(statusAndCode(await send({ method: "GET", headers: { cookie: `svc_session=${member}` } }, `?orgId=${org.orgId}`))).toEqual([403, "forbidden"]);
    expect(statusAndCode(await send({ method: "GET", headers: { cookie: `svc_session=${org.session}` } }, `?orgId=${other.orgId}`))).toEqual([
      404,
      "not_found",
    ]);
    expect(
      (
        await send(
          { method: "PUT", headers: { cookie: `svc_session=${org.session}`, "x-svc-csrf": org.csrf, "content-type": "application/json" }, body: body.body },
          `/other-provider?orgId=${org.orgId}`,
        )
      ).status,
    ).toBe(404);
    const cli = (await seedToken(org.orgId, "cli", ["tokens.manage"])).token;
    expect((await send({ method: "GET", headers: { authorization: `Bearer ${cli}` } }, `?orgId=${org.orgId}`)).status).toBe(401);
  });
});

describe("the CLI's provider routes", () => {
  it("store, list and revoke with tokens.manage, set budgets with billing.manage, for the token's organization", async () => {
    const org = await seedProviderOrg();
    const manager = (await seedToken(org.orgId, "cli", ["tokens.manage"])).token;
    const key = uniqueKey("messages");
    expect((await cliCall(manager, "PUT", "/messages-provider", { key })).status).toBe(200);
    const listed = (await (await cliCall(manager, "GET", "")).json()) as { providers: unknown[] };
    expect(listed.providers[0]).toMatchObject({ provider: "messages-provider", key: { lastFour: key.slice(-4) } });
    // Budgets need billing.manage: a scope the token lacks, then one its person's role (admin) lacks.
    expect(statusAndCode(await cliCall(manager, "PUT", "/messages-provider/budget", { monthlyCapUsd: 3 }))).toEqual([403, "forbidden"]);
    const adminBilling = (await seedToken(org.orgId, "cli", ["billing.manage"])).token;
    expect(statusAndCode(await cliCall(adminBilling, "PUT", "/messages-provider/budget", { monthlyCapUsd: 3 }))).toEqual([403, "forbidden"]);
    const ownerBilling = (await seedToken(org.orgId, "cli", ["billing.manage"], { personId: org.ownerId })).token;
    expect(await (await cliCall(ownerBilling, "PUT", "/messages-provider/budget", { monthlyCapUsd: 3 })).json()).toMatchObject({
      budget: { monthlyCapUsd: 3 },
    });
    expect((await cliCall(manager, "DELETE", "/messages-provider")).status).toBe(200);
  });

  it("refuse a session cookie, an engine token and a token without the scope", async () => {
    const org = await seedProviderOrg();
    const viaCookie = await workerFetch().fetch(`${BASE}/v1/providers`, { headers: { cookie: `svc_session=${org.session}` } });
    expect(viaCookie.status).toBe(401);
    expect((await cliCall(org.engine, "GET", "")).status).toBe(401);
    const unscoped = (await seedToken(org.orgId, "cli", [])).token;
    const refused = await cliCall(unscoped, "GET", "");
    expect(statusAndCode(refused)).toEqual([403, "forbidden"]);
    expect(await refused.json()).toEqual({ error: expect.stringContaining("svc login --scope tokens.manage") });
  });
});

describe("providers.prices", () => {
  it("names the API each provider speaks and lists the priced models at the price charged now (SVC_MODEL_PRICES applied); tokens.manage", async () => {
    const org = await seedProviderOrg();
    const prices = async (session: string) =>
      (
        await rpcClient(session, { env: proxyEnv({ SVC_MODEL_PRICES: "gpt-4o-mini=0.2/0.8,house-model=1/2" }) as Record<string, string> })
      ).providers.prices.query({
        orgId: org.orgId,
      });
    const answer = await prices(org.session);
    expect(answer.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(answer.providers.map(({ provider, api, path }) => ({ provider, api, path }))).toEqual([
      { provider: "messages-provider", api: "Anthropic's Messages API", path: "/byok/messages-provider/v1/messages" },
      { provider: "chat-provider", api: "OpenAI's Chat Completions API", path: "/byok/chat-provider/v1/chat/completions" },
    ]);
    const [messages, chat] = answer.providers;
    expect(messages!.source).toMatch(/^https:\/\/docs\.claude\.com\//);
    expect(messages!.models).toContainEqual({ model: "claude-sonnet-4-5", input: 3, output: 15 });
    expect(chat!.models).toContainEqual({ model: "gpt-4o-mini", input: 0.2, output: 0.8 });
    expect(chat!.models).toContainEqual({ model: "gpt-4o", input: 2.5, output: 10 });
    expect(answer.added).toEqual([{ model: "house-model", input: 1, output: 2 }]);

    const member = await seedSession(await seedPerson(`byok-member-${crypto.randomUUID().slice(0, 6)}`, [{ orgId: org.orgId, role: "member" }]));
    const refused = await rpcGet(member, "providers.prices", { orgId: org.orgId });
    expect(statusAndCode(refused)).toEqual([403, "forbidden"]);
  });
});

describe("the required-plan gate", () => {
  it("refuses a free organization's proxy requests and provider operations with 402", async () => {
    const gated = proxyEnv(billingOn({ SVC_HOSTED_REQUIRED_PLAN: "enterprise" }));
    const org = await seedProviderOrg();
    const proxied = await workerFetch(gated).fetch(`${PROXY}/chat-provider/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${org.engine}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [] }),
    });
    expect(proxied.status).toBe(402);
    expect(proxied.headers.get("x-svc-error-code")).toBe("plan_required");
    const cli = (await seedToken(org.orgId, "cli", ["tokens.manage"])).token;
    expect((await cliCall(cli, "GET", "", undefined, gated)).status).toBe(402);
    const browserCall = await workerFetch(gated).fetch(`${BASE}/console/api/providers?orgId=${org.orgId}`, {
      headers: { cookie: `svc_session=${org.session}` },
    });
    expect(browserCall.status).toBe(402);
  });
});
