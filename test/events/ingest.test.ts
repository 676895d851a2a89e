import { beforeEach, describe, expect, it } from "vitest";
import { call, callWith, UNREACHABLE_DATABASE } from "../support/http";
import { captureLogs } from "../support/logs";
import { type EventInput, isoAgo, makeEvent, postEvents, type IngestBody } from "../support/events";
import { seedOrganization, seedToken } from "../support/seed";
import { asRole } from "../support/sql";
import { statusAndCode } from "../support/refusals";

let orgId: string;
let token: string;

beforeEach(async () => {
  orgId = (await seedOrganization("ingest")).id;
  token = (await seedToken(orgId, "engine")).token;
});

async function storedIds(org = orgId): Promise<string[]> {
  return asRole("superuser", async (client) => {
    const { rows } = await client.query("SELECT id FROM events WHERE org_id = $1 ORDER BY id", [org]);
    return rows.map((row) => row.id as string);
  });
}

describe("POST /v1/events: accepted batches", () => {
  it("answers 202 with an IngestResult of exactly the spec's fields, and stores every event", async () => {
    const events = [makeEvent(), makeEvent({ type: "engine.custom", sequence: 3 })];
    const response = await postEvents(token, events);
    expect(response.status).toBe(202);
    const body = (await response.json()) as IngestBody;
    expect(Object.keys(body).sort()).toEqual(["accepted", "duplicates", "outcomes", "rejected", "unprojected"]);
    expect(body).toMatchObject({ accepted: 2, duplicates: 0, rejected: 0, unprojected: 2 });
    for (const outcome of body.outcomes) {
      expect(Object.keys(outcome).every((key) => ["id", "status", "reason", "note"].includes(key))).toBe(true);
    }
    expect(body.outcomes.map((outcome) => outcome.id)).toEqual(events.map((event) => event.id));
    expect(await storedIds()).toEqual(events.map((event) => event.id as string).sort());
  });

  it("answers a retry as duplicates and stores nothing twice", async () => {
    const events = [makeEvent(), makeEvent()];
    await postEvents(token, events);
    const response = await postEvents(token, events);
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({ accepted: 0, duplicates: 2, rejected: 0 });
    expect((await storedIds()).length).toBe(2);
  });

  it("stores the same id under a new timestamp as a second row", async () => {
    const first = makeEvent({ occurredAt: isoAgo(5000) });
    const again = { ...first, occurredAt: isoAgo(1000) };
    await postEvents(token, [first]);
    const body = (await (await postEvents(token, [again])).json()) as IngestBody;
    expect(body.accepted).toBe(1);
    expect(await storedIds()).toEqual([first.id, first.id]);
  });

  it("folds a duplicate inside one batch: the first is accepted, the second is a duplicate", async () => {
    const event = makeEvent();
    const body = (await (await postEvents(token, [event, { ...event }])).json()) as IngestBody;
    expect(body.outcomes.map((outcome) => outcome.status)).toEqual(["accepted", "duplicate"]);
    expect((await storedIds()).length).toBe(1);
  });

  it("stores each event once when the same batch is sent many times at once", async () => {
    const events = Array.from({ length: 50 }, () => makeEvent());
    const responses = await Promise.all(Array.from({ length: 8 }, () => postEvents(token, events)));
    const bodies = (await Promise.all(responses.map((response) => response.json()))) as IngestBody[];
    expect(responses.every((response) => response.status === 202)).toBe(true);
    expect(bodies.reduce((sum, body) => sum + body.accepted, 0)).toBe(50);
    expect(bodies.reduce((sum, body) => sum + body.duplicates, 0)).toBe(50 * 7);
    expect((await storedIds()).length).toBe(50);
  });

  it("accepts and stores an unknown type, counting it unprojected with a note", async () => {
    const event = makeEvent({ type: "quantum.entangled" });
    const body = (await (await postEvents(token, [event])).json()) as IngestBody;
    expect(body).toMatchObject({ accepted: 1, unprojected: 1 });
    expect(body.outcomes[0]!.note).toMatch(/quantum\.entangled/);
    expect(await storedIds()).toEqual([event.id]);
  });

  it("accepts 500 events in one batch", async () => {
    const response = await postEvents(
      token,
      Array.from({ length: 500 }, () => makeEvent()),
    );
    expect(response.status).toBe(202);
    expect((await storedIds()).length).toBe(500);
  });
});

describe("POST /v1/events: per-event rejection (207)", () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ["no id", { id: undefined }, /id/],
    ["empty type", { type: "" }, /type/],
    ["negative sequence", { sequence: -1 }, /sequence/],
    ["fractional sequence", { sequence: 1.5 }, /sequence/],
    ["occurredAt not a date-time", { occurredAt: "yesterday" }, /occurredAt/],
    ["no occurredAt", { occurredAt: undefined }, /occurredAt/],
    ["payload not an object", { payload: [1, 2] }, /payload/],
    ["more than one day ahead", { occurredAt: new Date(Date.now() + 25 * 3600_000).toISOString() }, /future/],
    ["more than one year back", { occurredAt: new Date(Date.now() - 366 * 86_400_000).toISOString() }, /past/],
    ["environment pull_request not an integer >= 1", { type: "environment.ready", envId: "e1", payload: { pull_request: 0 } }, /pull_request/],
    ["environment repository not owner/name", { type: "environment.ready", envId: "e1", payload: { repository: "nope" } }, /repository/],
    ["environment ttl_seconds below 1", { type: "environment.ready", envId: "e1", payload: { ttl_seconds: 0 } }, /ttl_seconds/],
  ];

  for (const [name, overrides, reason] of cases) {
    it(`rejects an event with ${name}, stores the rest`, async () => {
      const good = makeEvent();
      const bad = { ...makeEvent(), ...overrides };
      const response = await postEvents(token, [good, bad]);
      expect(response.status).toBe(207);
      const body = (await response.json()) as IngestBody;
      expect(body).toMatchObject({ accepted: 1, rejected: 1 });
      expect(body.outcomes[1]).toMatchObject({ status: "rejected", reason: expect.stringMatching(reason) });
      expect(await storedIds()).toEqual([good.id]);
    });
  }

  it("accepts events at the edges of the window", async () => {
    const response = await postEvents(token, [
      makeEvent({ occurredAt: new Date(Date.now() + 23 * 3600_000).toISOString() }),
      makeEvent({ occurredAt: new Date(Date.now() - 364 * 86_400_000).toISOString() }),
    ]);
    expect(response.status).toBe(202);
  });
});

describe("POST /v1/events: refusals store nothing", () => {
  it("answers 400 to a body that is not JSON", async () => {
    const response = await call("/v1/events", { method: "POST", token, body: "{not json", headers: { "content-type": "application/json" } });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: expect.any(String) });
  });

  it("answers 400 when there is no events array", async () => {
    for (const json of [{}, { events: "x" }, [1]]) {
      const response = await call("/v1/events", { method: "POST", token, json });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toMatch(/events/);
    }
    expect(await storedIds()).toEqual([]);
  });

  it("answers 401 without a token, with an unknown one, a CLI token or a revoked one", async () => {
    const cli = (await seedToken(orgId, "cli", ["tokens.manage"])).token;
    const revoked = await seedToken(orgId, "engine");
    await asRole("superuser", (client) => client.query("UPDATE tokens SET revoked_at = now() WHERE id = $1", [revoked.id]));
    for (const credential of [undefined, "svc_eng_unknown", cli, revoked.token]) {
      const response = await call("/v1/events", { method: "POST", ...(credential ? { token: credential } : {}), json: { events: [makeEvent()] } });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: expect.any(String) });
    }
    expect(await storedIds()).toEqual([]);
  });

  it("answers 403 with retryAfterSeconds for a suspended organization", async () => {
    await asRole("superuser", (client) => client.query("UPDATE organizations SET suspended_at = now() WHERE id = $1", [orgId]));
    const response = await postEvents(token, [makeEvent()]);
    expect(statusAndCode(response)).toEqual([403, "organization_suspended"]);
    const body = (await response.json()) as { error: string; retryAfterSeconds: number };
    expect(Object.keys(body).sort()).toEqual(["error", "retryAfterSeconds"]);
    expect(body.retryAfterSeconds).toBeGreaterThan(0);
    expect(await storedIds()).toEqual([]);
  });

  it("answers 413 to more than 500 events", async () => {
    const response = await postEvents(
      token,
      Array.from({ length: 501 }, () => makeEvent()),
    );
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: expect.stringMatching(/500/) });
    expect(await storedIds()).toEqual([]);
  });

  it("authenticates before it counts: more than 500 events with a wrong token is 401, not 413", async () => {
    const response = await postEvents(
      "svc_e_not-a-token-of-ours",
      Array.from({ length: 501 }, () => makeEvent()),
    );
    expect(response.status).toBe(401);
    expect(await storedIds()).toEqual([]);
  });

  it("answers 429 with Retry-After once the organization's allowance is spent", async () => {
    const send = (count: number) =>
      callWith({ SVC_INGEST_RATE_LIMIT: "10/20" }, "/v1/events", {
        method: "POST",
        token,
        json: { events: Array.from({ length: count }, () => makeEvent()) },
      });
    expect((await send(20)).status).toBe(202);
    const refused = await send(5);
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { retryAfterSeconds: number };
    expect(body.retryAfterSeconds).toBeGreaterThan(0);
    expect(refused.headers.get("retry-after")).toBe(String(body.retryAfterSeconds));
    expect((await storedIds()).length).toBe(20);
  });

  it("without a rate limit, finds the token and stores in one transaction: stored once, refused whole for a revoked token or a suspended organization", async () => {
    const send = (events: EventInput[], bearer = token) =>
      callWith({ SVC_INGEST_RATE_LIMIT: "off" }, "/v1/events", { method: "POST", token: bearer, json: { events } });
    const events = [makeEvent(), makeEvent()];
    expect((await send(events)).status).toBe(202);
    expect(await (await send(events)).json()).toMatchObject({ accepted: 0, duplicates: 2 });
    expect(await storedIds()).toEqual(events.map((event) => event.id as string).sort());
    const revoked = await seedToken(orgId, "engine");
    await asRole("superuser", (db) => db.query("UPDATE tokens SET revoked_at = now() WHERE id = $1", [revoked.id]));
    const refused = await send([makeEvent()], revoked.token);
    expect({ status: refused.status, code: refused.headers.get("x-svc-error-code") }).toEqual({ status: 401, code: "unauthenticated" });
    await asRole("superuser", (db) => db.query("UPDATE organizations SET suspended_at = now(), suspended_reason = 'operator' WHERE id = $1", [orgId]));
    const suspended = await send([makeEvent()]);
    expect({ status: suspended.status, code: suspended.headers.get("x-svc-error-code") }).toEqual({ status: 403, code: "organization_suspended" });
    expect(await storedIds()).toEqual(events.map((event) => event.id as string).sort());
  });

  it("answers 500 ServerFailure with a catalog code and the request id when the database is unreachable", async () => {
    let response = new Response();
    const logs = await captureLogs(async () => {
      response = await callWith(UNREACHABLE_DATABASE, "/v1/events", {
        method: "POST",
        token,
        json: { events: [makeEvent({ payload: { secret: "do-not-echo" } })] },
      });
    });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain("do-not-echo");
    // Logged once, as one line, with nothing of the payload.
    expect(logs.event("request.failed")).toMatchObject({ code: "database_unavailable", requestId: response.headers.get("x-request-id") });
    expect(logs.text).not.toContain("do-not-echo");
    const body = JSON.parse(text) as { error: { code: string; message: string; resolution: string }; requestId: string };
    expect(body.error).toEqual({ code: "database_unavailable", message: expect.any(String), resolution: expect.any(String) });
    expect(body.requestId).toBe(response.headers.get("x-request-id"));
  });
});

describe("tenant isolation through the API", () => {
  it("stores events under the token's organization only", async () => {
    const other = (await seedOrganization("ingest-other")).id;
    const event = makeEvent();
    await postEvents(token, [event]);
    expect(await storedIds(other)).toEqual([]);
    expect(await storedIds(orgId)).toEqual([event.id]);
  });
});
