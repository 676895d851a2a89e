// POST /v1/events with events PostgreSQL could not store or index: each is rejected alone with a
// reason (207) and the rest of the batch is stored; a body past the size limit is 413.
import { beforeEach, describe, expect, it } from "vitest";
import { call } from "../support/http";
import { makeEvent, postEvents, type IngestBody } from "../support/events";
import { seedOrganization, seedToken } from "../support/seed";
import { asRole } from "../support/sql";

let orgId: string;
let token: string;

beforeEach(async () => {
  orgId = (await seedOrganization("limits")).id;
  token = (await seedToken(orgId, "engine")).token;
});

const storedIds = () =>
  asRole("superuser", async (client) => (await client.query("SELECT id FROM events WHERE org_id = $1", [orgId])).rows.map((row) => row.id as string));

const environmentCount = () =>
  asRole("superuser", async (client) => Number((await client.query("SELECT count(*) FROM environments WHERE org_id = $1", [orgId])).rows[0].count));

const random = (length: number) => Array.from(crypto.getRandomValues(new Uint8Array(length)), (byte) => (byte % 36).toString(36)).join("");

describe("POST /v1/events: one event past a limit is rejected alone", () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ["a 3,000-character random id", { id: random(3000) }, /`id`: must be at most 200 characters/],
    ["a NUL in its id", { id: "x\u0000" }, /`id`: must not contain a NUL/],
    ["a type over 100 characters", { type: "t".repeat(101) }, /`type`: must be at most 100 characters/],
    ["a NUL in its type", { type: "run.\u0000started" }, /`type`: must not contain a NUL/],
    ["an envId over 200 characters", { envId: "e".repeat(201) }, /`envId`: must be at most 200/],
    ["a NUL in its envId", { envId: "env\u0000" }, /`envId`: must not contain a NUL/],
    ["a NUL in a payload value", { payload: { note: "a\u0000b" } }, /`payload\.note`: must not contain a NUL/],
    ["a NUL deep in a payload", { payload: { steps: [{ name: "ok" }, { name: "\u0000" }] } }, /`payload\.steps\.1\.name`: must not contain a NUL/],
    ["a NUL in a payload key", { payload: { "k\u0000": 1 } }, /`payload`: has a key that must not contain a NUL/],
    ["a lone surrogate in a payload value", { payload: { note: "\udfff" } }, /`payload\.note`: must not contain a lone surrogate/],
    ["a lone surrogate in its id", { id: "a\ud800" }, /`id`: must not contain a lone surrogate/],
    ["a payload over 64 KiB of UTF-8", { payload: { text: "é".repeat(33 * 1024) } }, /`payload`: must be at most 65536 bytes/],
    ["a payload nested over 32 levels", { payload: JSON.parse(`${'{"a":'.repeat(40)}1${"}".repeat(40)}`) }, /must not nest more than 32 levels/],
    ["a NUL in an environment event's branch", { type: "environment.ready", envId: "e1", payload: { repository: "o/r", branch: "main\u0000" } }, /NUL/],
    [
      "an environment branch over 255 characters",
      { type: "environment.ready", envId: "e1", payload: { repository: "o/r", branch: "b".repeat(256) } },
      /`payload\.branch`: must be at most 255/,
    ],
    [
      "a preview URL with a NUL",
      { type: "environment.ready", envId: "e1", payload: { repository: "o/r", preview_urls: ["https://a.example/\u0000"] } },
      /preview_urls/,
    ],
    [
      "a pull request number past PostgreSQL's integer",
      { type: "environment.ready", envId: "e1", payload: { repository: "o/r", pull_request: 2 ** 31 } },
      /pull_request/,
    ],
    [
      "a NUL in a final event's payload",
      { type: "workload.finished", payload: { runId: crypto.randomUUID(), note: "\u0000" } },
      /`payload\.note`: must not contain a NUL/,
    ],
  ];

  for (const [name, overrides, reason] of cases) {
    it(`rejects an event with ${name} (207), stores the other`, async () => {
      const bad = { ...makeEvent(), ...overrides };
      const good = makeEvent();
      const response = await postEvents(token, [bad, good]);
      expect(response.status).toBe(207);
      const body = (await response.json()) as IngestBody;
      expect(body).toMatchObject({ accepted: 1, rejected: 1, duplicates: 0 });
      expect(body.outcomes[0]).toEqual({ id: bad.id, status: "rejected", reason: expect.stringMatching(reason) });
      expect(body.outcomes[1]).toMatchObject({ id: good.id, status: "accepted" });
      expect(await storedIds()).toEqual([good.id]);
      expect(await environmentCount()).toBe(0);
    });
  }

  it("accepts text at the limits: 200-character ids, a payload just under 64 KiB, astral characters", async () => {
    const events = [makeEvent({ id: "i".repeat(200), payload: { text: "x".repeat(60 * 1024), emoji: "🚀" } })];
    const response = await postEvents(token, events);
    expect(response.status).toBe(202);
    expect(await storedIds()).toEqual(["i".repeat(200)]);
  });
});

describe("POST /v1/events: the body's size", () => {
  it("answers 413 to a body over 5 MiB, storing nothing", async () => {
    const events = Array.from({ length: 90 }, () => makeEvent({ payload: { text: "x".repeat(60 * 1024) } }));
    const response = await postEvents(token, events);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: expect.stringMatching(/5 MiB/) });
    expect(await storedIds()).toEqual([]);
  });

  it("answers 413 to a 10 MB body at once, without reading it", async () => {
    const started = Date.now();
    const response = await call("/v1/events", {
      method: "POST",
      token,
      body: new Uint8Array(10_000_000).fill(32),
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(413);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
