// The error catalog holds only codes the service produces: each one is drawn by a real request (its
// answer carries the code in x-svc-error-code and the catalog's status) or, for the start-up codes, by
// the configuration check's exit status; and the published form lists exactly the catalog.
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../worker/config/parse";
import { catalogDocument, ERROR_CATALOG, type ErrorCode } from "../../worker/http/catalog";
import { baseEnv, envWith, LICENCE_PUBLIC_KEY, NOW } from "../config/fixtures";
import { seedTenant } from "../support/bearer-routes";
import { call, callWith, UNREACHABLE_DATABASE } from "../support/http";
import { captureLogs } from "../support/logs";
import { PROXY, proxyEnv, seedProviderOrg, uniqueKey, workerFetch } from "../support/providers";
import { rpcClient } from "../support/rpc";
import { browser } from "../support/sessions";
import { asRole } from "../support/sql";
import { ANSWERS, forkCommitRefused, type Ask } from "../openapi/answers";
import { newRepository, postClaim } from "../support/codehost";
import { billingOn } from "../support/billing";

type StartupCode = "config_invalid" | "licence_invalid";

/** Where the configuration check stops with the code's exit status. */
const STARTUP: Record<StartupCode, Record<string, string>> = {
  config_invalid: envWith({ SVC_EVENT_RETENTION_MONTHS: "x" }),
  licence_invalid: envWith({ SVC_LICENSE_KEY: "licence-garbage-value", SVC_ORG: "acme", SVC_LICENSE_PUBLIC_KEYS: `k1=${LICENCE_PUBLIC_KEY}` }, baseEnv),
};

/** What confirms an organization's deletion: its slug. */
const deletionConfirmed = async (orgId: string) => ({
  orgId,
  confirm: (await asRole("superuser", (client) => client.query("SELECT slug FROM organizations WHERE id = $1", [orgId]))).rows[0].slug as string,
});

/** A deletion just requested: its export link answers 409 until the Export step ran. */
async function exportNotReady() {
  const tenant = await seedTenant("catalog-deletion");
  const { exportLink } = await (await rpcClient(tenant.ownerSession)).deletion.request.mutate(await deletionConfirmed(tenant.orgId));
  return call(new URL(exportLink).pathname + new URL(exportLink).search);
}

/** A model request through the proxy with `engine`'s organization's key, as the messages API's clients send it. */
const askModel = (engine: string, model = "claude-haiku-4-5", overrides = proxyEnv()) =>
  workerFetch(overrides).fetch(`${PROXY}/messages-provider/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": engine, "content-type": "application/json" },
    body: JSON.stringify({ model, max_tokens: 10, messages: [{ role: "user", content: "hi" }] }),
  });

/** A console procedure called by a fresh organization's owner (a browser session with its CSRF token), under settings over the suite's. */
/** A signed-in owner's headers for a console call that changes something. */
const ownerHeaders = async (session: string) => ({ cookie: `svc_session=${session}`, "x-svc-csrf": await browser(session).csrf() });

async function asOwner(name: string, input: (orgId: string) => unknown = (orgId) => ({ orgId }), env: Record<string, string | undefined> = {}, times = 1) {
  const tenant = await seedTenant("catalog-rpc");
  const headers = await ownerHeaders(tenant.ownerSession);
  const json = await input(tenant.orgId);
  const send = () => callWith(env, `/rpc/${name}`, { method: "POST", json, headers });
  for (let i = 1; i < times; i++) await send();
  return send();
}

const keyed = () => seedProviderOrg({ keys: { "messages-provider": uniqueKey("messages") }, budgets: { "messages-provider": 5 } });

/** Every code answered over HTTP, each with a request that draws it. */
const PRODUCED: Record<Exclude<ErrorCode, StartupCode>, Ask> = {
  invalid_json: () => call("/v1/auth/codehost-oidc", { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" }),
  invalid_request: ANSWERS["post /v1/auth/codehost-oidc"]![400]!,
  unauthenticated: ANSWERS["post /v1/events"]![401]!,
  identity_unverified: ANSWERS["post /v1/auth/codehost-oidc"]![401]!,
  signature_invalid: () => call("/webhooks/codehost", { method: "POST", json: {} }),
  csrf_failed: async () => browser((await seedTenant("catalog-csrf")).ownerSession).post("/auth/signout", {}),
  forbidden: ANSWERS["get /v1/oidc/bindings"]![403]!,
  organization_suspended: ANSWERS["post /v1/events"]![403]!,
  identity_not_bound: ANSWERS["post /v1/auth/codehost-oidc"]![403]!,
  plan_required: ANSWERS["post /v1/events"]![402]!,
  // The suite installs no licence: every enterprise route answers 402.
  licence_required: () => call("/sso/acme/login"),
  not_found: ANSWERS["delete /v1/oidc/bindings/{binding}"]![404]!,
  claim_held_elsewhere: ANSWERS["post /v1/oidc/bindings"]![409]!,
  // No App installation of the organization on the owner: the claim stays pending.
  claim_proof_required: async () => postClaim((await seedTenant("catalog-claim")).cli, newRepository("catalog").full),
  export_not_ready: exportNotReady,
  // Console procedures: their refusals carry the code in the envelope and, for a call not batched, in the header.
  // A signed-in caller's: a stranger is told 401 before anything of the body is judged.
  unsupported_media_type: async () => {
    const tenant = await seedTenant("catalog-media");
    const headers = { cookie: `svc_session=${tenant.ownerSession}`, "x-svc-csrf": await browser(tenant.ownerSession).csrf() };
    return call("/rpc/organization.settings", {
      method: "POST",
      body: "orgId=x",
      headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
    });
  },
  last_owner: () => asOwner("account.close", () => ({ confirm: "close" })),
  already_exists: () => asOwner("runtimes.register", (orgId) => ({ orgId, name: "catalog-runner" }), {}, 2),
  state_conflict: () => asOwner("deletion.request", deletionConfirmed, {}, 2),
  not_configured: () => asOwner("billing.portal"),
  billing_account_missing: () => asOwner("billing.portal", undefined, billingOn()),
  plan_not_for_sale: () =>
    asOwner("subscriptions.checkout", (orgId) => ({ orgId, plan: "enterprise" }), billingOn({ SVC_BILLING_PRICE_ENTERPRISE: undefined })),
  billing_refused: () => asOwner("subscriptions.checkout", (orgId) => ({ orgId, plan: "team" }), billingOn({ SVC_BILLING_API_BASE: "http://127.0.0.1:1" })),
  repository_not_claimed: () => asOwner("masking.propose", (orgId) => ({ orgId, summary: "catalog", content: "" })),
  member_list_unavailable: () => asOwner("members.sync"),
  lease_not_held: ANSWERS["post /v1/workloads/runs/{runId}/heartbeat"]![409]!,
  payload_too_large: ANSWERS["post /v1/events"]![413]!,
  rate_limited: ANSWERS["post /v1/events"]![429]!,
  // Billing is off in the suite's configuration.
  webhook_not_configured: () => call("/webhooks/billing", { method: "POST", body: "{}" }),
  operator_portal_off: () => callWith({ SVC_ADMIN_DATABASE_URL: undefined }, "/admin/session"),
  model_unpriced: async () => askModel((await keyed()).engine, "model-without-a-price"),
  provider_key_missing: async () => askModel((await seedProviderOrg({ budgets: { "messages-provider": 5 } })).engine),
  // No budget set: nothing may be spent.
  budget_exceeded: async () => askModel((await seedProviderOrg({ keys: { "messages-provider": uniqueKey("messages") } })).engine),
  provider_unreachable: async () => askModel((await keyed()).engine, undefined, proxyEnv({ SVC_MESSAGES_PROVIDER_API_BASE: "http://127.0.0.1:1" })),
  sealing_key_missing: async () =>
    (await seedProviderOrg({ env: proxyEnv({ SVC_PROVIDER_KEY_SECRET: undefined }) })).consoleApi("PUT", "/messages-provider", { key: uniqueKey("messages") }),
  origin_not_allowed: () => call("/v1/leads", { method: "POST", headers: { origin: "https://foreign.example" }, json: {} }),
  analytics_upstream_failed: () =>
    callWith({ SVC_ANALYTICS_VENDOR_REGION: "eu", SVC_ANALYTICS_VENDOR_API_BASE: "http://127.0.0.1:1" }, "/px/e/", { method: "POST", json: {} }),
  fork_commit_not_approved: forkCommitRefused,
  already_reported: ANSWERS["post /v1/pr/report"]![409]!,
  codehost_refused: ANSWERS["post /v1/pr/callback-token"]![502]!,
  internal_error: ANSWERS["get /health"]![500]!,
  database_unavailable: async () =>
    callWith(UNREACHABLE_DATABASE, "/v1/events", { method: "POST", token: (await seedTenant("catalog-db")).engine, json: { events: [] } }),
};

describe("the error catalog", () => {
  it("has a way to produce every code, and no more", () => {
    expect([...Object.keys(PRODUCED), ...Object.keys(STARTUP)].sort()).toEqual(Object.keys(ERROR_CATALOG).sort());
  });

  it.each(Object.keys(PRODUCED) as Array<keyof typeof PRODUCED>)("produces %s with its status", async (code) => {
    let response = new Response();
    // What the drawn failure logs is read here, not printed: an unexpected one is one request.failed line.
    const logs = await captureLogs(async () => {
      response = await PRODUCED[code]();
    });
    expect({ code: response.headers.get("x-svc-error-code"), status: response.status }).toEqual({ code, status: ERROR_CATALOG[code].status });
    if (code === "internal_error" || code === "database_unavailable") expect(logs.event("request.failed")).toMatchObject({ code });
  });

  it.each(Object.keys(STARTUP) as StartupCode[])("stops the configuration check with the exit status of %s", (code) => {
    const result = parseConfig(STARTUP[code], { now: NOW });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Math.max(...result.errors.map((error) => error.exitStatus))).toBe(ERROR_CATALOG[code].exitStatus);
  });

  it("is published (errors.v1.json) as exactly its codes with their status, message, recovery, retry safety and exit status", () => {
    const published = catalogDocument();
    expect(published.version).toBe(1);
    expect(published.errors).toEqual(
      Object.entries(ERROR_CATALOG).map(([code, entry]) => ({
        code,
        status: entry.status,
        message: entry.message,
        recovery: entry.resolution,
        retrySafe: entry.retrySafe,
        documentation: `/docs/errors#${code}`,
        exitStatus: "exitStatus" in entry ? entry.exitStatus : null,
      })),
    );
  });
});
