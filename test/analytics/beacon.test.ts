// POST /v1/site/events: the closed catalog, the batch limit, duplicates, cross-origin access for the
// site's origins only, the off switch by configuration, and the insert-only stream.
import { describe, expect, it } from "vitest";
import { callWith } from "../support/http";
import { SITE_BEACON_RULE } from "../../worker/analytics/beacon-route";
import { asRole } from "../support/sql";

const SECRET = "ab".repeat(32);
const SITE = "https://site.example";
const ON = { SVC_ANALYTICS_SURROGATE_SECRET: SECRET, SVC_SITE_ORIGIN: `${SITE},http://localhost:4321` };

const landed = (more: Record<string, unknown> = {}) => ({
  id: crypto.randomUUID(),
  name: "page_landed",
  session: `s-${crypto.randomUUID().slice(0, 12)}`,
  props: { channel: "search", page: "/docs/:id", campaign: "spring_launch" },
  ...more,
});

const post = (events: unknown[], env: Record<string, string> = ON, headers: Record<string, string> = {}) =>
  callWith(env, "/v1/site/events", { method: "POST", json: { events }, headers });

type Result = { recording: boolean; recorded: number; duplicates: number; refused: number; outcomes: Array<{ outcome: string; reason?: string }> };

const stored = (ids: string[]) =>
  asRole(
    "superuser",
    async (client) =>
      (await client.query("SELECT id, name, channel, page, campaign, session_key FROM site_events WHERE id = ANY($1::uuid[]) ORDER BY id", [ids])).rows,
  );

const rejects = () =>
  asRole("superuser", async (client) =>
    Object.fromEntries(
      (await client.query<{ reason: string; n: number }>("SELECT reason, count(*)::int AS n FROM site_event_rejects GROUP BY reason")).rows.map((row) => [
        row.reason,
        row.n,
      ]),
    ),
  );

describe("POST /v1/site/events", () => {
  it("records catalog events, refuses and counts unknown names and undeclared fields, and the rest of the batch goes on", async () => {
    const before = await rejects();
    const good = landed();
    const signup = landed({ name: "signup_reached", props: { channel: "direct", page: "/signup" } });
    const batch = [
      good,
      landed({ name: "clicked_button" }),
      landed({ props: { channel: "search", page: "/", note: "free text" } }),
      landed({ extra: 1 }),
      landed({ props: { channel: "somewhere", page: "/" } }),
      landed({ props: { channel: "search", page: "/pricing?plan=team" } }),
      "not an event",
      signup,
    ];
    const response = await post(batch);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Result;
    expect(body).toMatchObject({ recording: true, recorded: 2, duplicates: 0, refused: 6 });
    expect(body.outcomes).toEqual([
      { outcome: "recorded" },
      { outcome: "refused", reason: "unknown_name" },
      { outcome: "refused", reason: "undeclared_field" },
      { outcome: "refused", reason: "undeclared_field" },
      { outcome: "refused", reason: "invalid_field" },
      { outcome: "refused", reason: "invalid_field" },
      { outcome: "refused", reason: "malformed" },
      { outcome: "recorded" },
    ]);
    const rows = await stored([good.id, signup.id]);
    expect(rows).toHaveLength(2);
    const row = rows.find((r) => r.id === good.id)!;
    expect(row).toMatchObject({ name: "page_landed", channel: "search", page: "/docs/:id", campaign: "spring_launch" });
    // The session is kept only as a keyed pseudonym, never as the browser sent it.
    expect(row.session_key).toMatch(/^[0-9a-f]{64}$/);
    expect(row.session_key).not.toContain(good.session);
    const after = await rejects();
    const grew = (reason: string) => (after[reason] ?? 0) - (before[reason] ?? 0);
    expect({ unknown: grew("unknown_name"), undeclared: grew("undeclared_field"), invalid: grew("invalid_field"), malformed: grew("malformed") }).toEqual({
      unknown: 1,
      undeclared: 2,
      invalid: 2,
      malformed: 1,
    });
  });

  it("records a retried event once and counts the retry as a duplicate, within a batch and across batches", async () => {
    const event = landed();
    const first = (await (await post([event, event])).json()) as Result;
    expect(first.outcomes).toEqual([{ outcome: "recorded" }, { outcome: "duplicate" }]);
    const again = (await (await post([event])).json()) as Result;
    expect(again).toMatchObject({ recorded: 0, duplicates: 1, outcomes: [{ outcome: "duplicate" }] });
    expect(await stored([event.id])).toHaveLength(1);
  });

  it("takes up to 20 events and refuses 21 whole with 413, recording none", async () => {
    const twenty = Array.from({ length: 20 }, () => landed());
    expect(((await (await post(twenty)).json()) as Result).recorded).toBe(20);
    const twentyOne = Array.from({ length: 21 }, () => landed());
    const refused = await post(twentyOne);
    expect(refused.status).toBe(413);
    expect(((await refused.json()) as { error: string }).error).toMatch(/at most 20 events/);
    expect(await stored(twentyOne.map((event) => event.id))).toEqual([]);
  });

  it("refuses a body that is not a batch with 400", async () => {
    const response = await callWith(ON, "/v1/site/events", { method: "POST", json: { event: landed() } });
    expect(response.status).toBe(400);
    await response.json();
  });

  it("records nothing at all with SVC_ANALYTICS_SURROGATE_SECRET unset, refusals included", async () => {
    const before = await rejects();
    const event = landed();
    const response = await post([event, landed({ name: "unknown" })], { SVC_SITE_ORIGIN: SITE });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      recording: false,
      recorded: 0,
      duplicates: 0,
      refused: 0,
      outcomes: [{ outcome: "not_recorded" }, { outcome: "not_recorded" }],
    });
    expect(await stored([event.id])).toEqual([]);
    expect(await rejects()).toEqual(before);
  });
});

describe("cross-origin access", () => {
  it("answers a preflight from a configured origin with exactly that origin, no credentials, no wildcard", async () => {
    const response = await callWith(ON, "/v1/site/events", {
      method: "OPTIONS",
      headers: { origin: SITE, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe(SITE);
    expect(response.headers.get("access-control-allow-methods")).toBe("POST");
    expect(response.headers.get("access-control-allow-headers")).toBe("content-type");
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
    expect(response.headers.get("vary")).toMatch(/Origin/);
  });

  it("marks a configured origin's answer with that one origin", async () => {
    const response = await post([landed()], ON, { origin: "http://localhost:4321" });
    expect(response.status).toBe(200);
    await response.json();
    expect(response.headers.get("access-control-allow-origin")).toBe("http://localhost:4321");
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("lets the site read its refusals (400, 413), so the beacon sees a 4xx and never retries it as a network failure", async () => {
    for (const [events, status] of [
      [Array.from({ length: 21 }, () => landed()), 413],
      ["not a batch", 400],
    ] as const) {
      const response = await callWith(ON, "/v1/site/events", { method: "POST", json: { events }, headers: { origin: SITE } });
      expect({ status: response.status, allowed: response.headers.get("access-control-allow-origin") }).toEqual({ status, allowed: SITE });
      await response.json();
    }
  });

  it("refuses any other origin, a look-alike or with the site's origin unset, with 403 and records nothing", async () => {
    for (const [origin, env] of [
      ["https://evil.example", ON],
      ["https://site.example.evil.example", ON],
      ["http://site.example", ON],
      [SITE, { SVC_ANALYTICS_SURROGATE_SECRET: SECRET }],
    ] as const) {
      const preflight = await callWith(env, "/v1/site/events", { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST" } });
      expect({ origin, status: preflight.status }).toEqual({ origin, status: 403 });
      expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
      await preflight.text();
      const event = landed();
      const response = await post([event], env, { origin });
      expect({ origin, status: response.status }).toEqual({ origin, status: 403 });
      expect(response.headers.get("access-control-allow-origin")).toBeNull();
      await response.json();
      expect(await stored([event.id])).toEqual([]);
    }
  });
});

describe("the analytics stream", () => {
  it("is insert-only for the application role: an insert works, a read raises a permission error", async () => {
    const id = crypto.randomUUID();
    await asRole("app", async (client) => {
      const inserted = await client.query("INSERT INTO site_events (id, name, session_key, channel, page) VALUES ($1, 'page_landed', $2, 'direct', '/')", [
        id,
        "0".repeat(64),
      ]);
      expect(inserted.rowCount).toBe(1);
      for (const table of ["site_events", "site_event_rejects"]) {
        const failure = await client.query(`SELECT count(*) FROM ${table}`).catch((error: { code?: string; message: string }) => error);
        expect({ table, code: (failure as { code?: string }).code }).toEqual({ table, code: "42501" });
        expect((failure as Error).message).toMatch(/permission denied/);
      }
    });
    expect(await stored([id])).toHaveLength(1);
  });
});

describe("POST /v1/site/events rate limit", () => {
  const address = () => `203.0.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`;

  it("limits batches per client address: past the burst 429 with Retry-After and retryAfterSeconds, nothing read; another address goes on", async () => {
    const from = address();
    // Without the surrogate secret nothing is recorded, so the burst costs no database work.
    const off = { SVC_SITE_ORIGIN: SITE };
    const before = await rejects();
    // The bucket refills one batch a second: the burst goes at once, and the next request follows it directly.
    const statuses = await Promise.all(
      Array.from({ length: SITE_BEACON_RULE.capacity }, async () => (await post([landed()], off, { "x-forwarded-for": from })).status),
    );
    expect(statuses.every((status) => status === 200)).toBe(true);
    // Over the limit, even a body that would be refused (and counted) is not looked at.
    const limited = await post(["not an event"], ON, { "x-forwarded-for": from, origin: SITE });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("x-svc-error-code")).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await limited.json()).toEqual({ error: expect.any(String), retryAfterSeconds: expect.any(Number) });
    expect(limited.headers.get("access-control-allow-origin")).toBe(SITE);
    expect(await rejects()).toEqual(before);
    expect((await post([landed()], off, { "x-forwarded-for": address() })).status).toBe(200);
  });
});
