// Bring your own model key, driven as its clients drive it: the Worker under a configuration that
// names the fake providers and the fake analytics vendor, an organization holding a key and a
// budget, and the fakes' records.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { inject } from "vitest";
import worker from "../../worker/index";
import { BASE } from "./http";
import { seedOrganization, seedToken } from "./seed";
import { browser, seedPerson, seedSession } from "./sessions";
import { asRole } from "./sql";

export const SEALING_KEY_V1 = btoa(String.fromCharCode(...new Uint8Array(32).fill(11)));
export const SEALING_KEY_V2 = btoa(String.fromCharCode(...new Uint8Array(32).fill(22)));
export const SURROGATE_SECRET = "5e".repeat(32);
/**
 * Models the tests use besides the built-in ones: `slow-model` streams slowly from the fakes;
 * `fetching-model` reports a million more input tokens than it was sent (as a provider that fetched
 * a large document itself would).
 */
export const TEST_PRICES = "slow-model=3/15,fetching-model=3/15";

/** The suite's configuration with the proxy's upstreams, a sealing key and analytics on; `more` adds or (undefined) removes. */
export function proxyEnv(more: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const fakes = inject("modelProviders");
  return {
    SVC_MESSAGES_PROVIDER_API_BASE: fakes.messages,
    SVC_CHAT_PROVIDER_API_BASE: fakes.chat,
    SVC_PROVIDER_KEY_SECRET: SEALING_KEY_V1,
    SVC_MODEL_PRICES: TEST_PRICES,
    SVC_ANALYTICS_VENDOR_REGION: "eu",
    SVC_ANALYTICS_VENDOR_PROJECT_KEY: "phc_test_project",
    SVC_ANALYTICS_SURROGATE_SECRET: SURROGATE_SECRET,
    SVC_ANALYTICS_VENDOR_API_BASE: fakes.analytics,
    ...more,
  };
}

/**
 * The Worker as a `fetch` (what the providers' SDKs take), under `overrides`. Streams of events come
 * back at once, still flowing; `settled` waits for the work each request left running after
 * its response (streams read to their end, charges, analytics).
 */
export function workerFetch(overrides: Record<string, string | undefined> = proxyEnv()) {
  const pending: Promise<void>[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const ctx = createExecutionContext();
    const request = new Request(input, init) as Request<unknown, IncomingRequestCfProperties>;
    const response = await worker.fetch(request, { ...env, ...overrides }, ctx);
    pending.push(waitOnExecutionContext(ctx));
    // A body nobody reads would hold the request's pool open (it ends once the body is sent): only a
    // stream of events is handed over flowing, every other answer read first, as a client reads it.
    if (!response.body || response.headers.get("content-type")?.startsWith("text/event-stream")) return response;
    return new Response(await response.arrayBuffer(), response);
  };
  return { fetch, settled: () => Promise.all(pending).then(() => undefined) };
}

export const PROXY = `${BASE}/byok`;

let keys = 0;
/** A key no other test uses, so the fakes' records can be read per test. */
export const uniqueKey = (provider: string) => `sk-test-${provider}-${Date.now().toString(36)}-${++keys}-${crypto.randomUUID().slice(0, 8)}`;

/** An organization with an owner signed in and an engine token; `keys`/`budgets` stored through the console routes. */
export async function seedProviderOrg(
  options: {
    keys?: Partial<Record<"messages-provider" | "chat-provider", string>>;
    budgets?: Partial<Record<"messages-provider" | "chat-provider", number>>;
    env?: Record<string, string | undefined>;
  } = {},
) {
  const orgId = (await seedOrganization("byok")).id;
  const ownerId = await seedPerson(`byok-owner-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "owner" }]);
  const session = await seedSession(ownerId);
  const csrf = await browser(session).csrf();
  const engine = (await seedToken(orgId, "engine")).token;
  const { fetch } = workerFetch(options.env ?? proxyEnv());
  const consoleApi = (method: string, path: string, json?: unknown) =>
    fetch(`${BASE}/console/api/providers${path}${path.includes("?") ? "&" : "?"}orgId=${orgId}`, {
      method,
      headers: { cookie: `svc_session=${session}`, "x-svc-csrf": csrf, ...(json === undefined ? {} : { "content-type": "application/json" }) },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
  for (const [provider, key] of Object.entries(options.keys ?? {})) expectOk(await consoleApi("PUT", `/${provider}`, { key }));
  for (const [provider, cap] of Object.entries(options.budgets ?? {})) expectOk(await consoleApi("PUT", `/${provider}/budget`, { monthlyCapUsd: cap }));
  return { orgId, ownerId, session, csrf, engine, consoleApi };
}

function expectOk(response: Response) {
  if (response.status !== 200) throw new Error(`seeding a provider answered ${response.status}`);
}

export interface FakeCall {
  key: string | null;
  model: string;
  stream: boolean;
  maxTokens: number | undefined;
  includeUsage: boolean;
}

/** The requests a fake provider received with `key`. */
export async function fakeCalls(kind: "messages" | "chat", key: string): Promise<FakeCall[]> {
  const response = await globalThis.fetch(`${inject("modelProviders")[kind]}/_fake/requests?key=${encodeURIComponent(key)}`);
  return (await response.json()) as FakeCall[];
}

/** Makes a fake provider refuse `key` with `status`. */
export async function fakeRefuses(kind: "messages" | "chat", key: string, status: number, message: string): Promise<void> {
  await globalThis.fetch(`${inject("modelProviders")[kind]}/_fake/refusals`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key, status, message }),
  });
}

/** Every event the fake analytics vendor received. */
export async function analyticsEvents(): Promise<Array<{ event: string; distinct_id: string; api_key: string; properties: Record<string, unknown> }>> {
  return (await (await globalThis.fetch(`${inject("modelProviders").analytics}/_fake/events`)).json()) as never;
}

/** This month's spend row for a provider, in micro-dollars (null before the first request). */
export async function spendOf(orgId: string, provider: string): Promise<{ spent: number; reserved: number; requests: number } | null> {
  const row = await monthOf(orgId, provider);
  if (!row) return null;
  const { overrun: _overrun, ...spend } = row;
  return spend;
}

/** The month's spend row, with what settlement charged past the cap. */
export async function monthOf(orgId: string, provider: string): Promise<{ spent: number; reserved: number; requests: number; overrun: number } | null> {
  return asRole("superuser", async (client) => {
    const { rows } = await client.query(
      `SELECT spent_micros::float8 AS spent, reserved_micros::float8 AS reserved, requests::int AS requests, overrun_micros::float8 AS overrun FROM provider_spend
       WHERE org_id = $1 AND provider = $2 AND month = date_trunc('month', now() AT TIME ZONE 'UTC')::date`,
      [orgId, provider],
    );
    return (rows[0] as { spent: number; reserved: number; requests: number; overrun: number } | undefined) ?? null;
  });
}
