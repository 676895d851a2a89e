// Engine records from events: each projection rule, out of order and retried, and malformed payloads
// of every record type answered per event (207 with a reason), never a 500.
import { beforeEach, describe, expect, it } from "vitest";
import { isoAgo, makeEvent, postEvents, type IngestBody } from "../support/events";
import { call } from "../support/http";
import { seedOrganization, seedToken } from "../support/seed";
import { asRole } from "../support/sql";
import { seedEnvironment, seedRun } from "../support/workloads";

let orgId: string;
let token: string;

beforeEach(async () => {
  orgId = (await seedOrganization("records")).id;
  token = (await seedToken(orgId, "engine")).token;
});

const rows = (sql: string, params: unknown[] = []) => asRole("superuser", async (client) => (await client.query(sql, [orgId, ...params])).rows);

const run = async (runId: string) =>
  (
    await rows(
      `SELECT env_id, name, runtime, outcome, duration_ms::int AS duration_ms, started_at, finished_at, started_event_id, finished_event_id
     FROM engine_runs WHERE org_id = $1 AND run_id = $2`,
      [runId],
    )
  )[0] ?? null;

async function send(events: unknown[]): Promise<IngestBody & { status: number }> {
  const response = await postEvents(token, events);
  return { status: response.status, ...((await response.json()) as IngestBody) };
}

const started = (runId: string, ago: number, more: Record<string, unknown> = {}) =>
  makeEvent({ type: "run.started", envId: "env-1", occurredAt: isoAgo(ago), payload: { runId, name: "checkout suite", ...more } });
const finished = (runId: string, ago: number, outcome = "passed", more: Record<string, unknown> = {}) =>
  makeEvent({ type: "run.finished", envId: "env-1", occurredAt: isoAgo(ago), payload: { runId, outcome, ...more } });

describe("runs", () => {
  it("run.started then run.finished make one finished run with its timings", async () => {
    const start = started("r1", 60_000, { runtime: "linux-large" });
    const end = finished("r1", 30_000, "failed", { durationMs: 29_500 });
    const body = await send([start, end]);
    expect(body).toMatchObject({ status: 202, accepted: 2, rejected: 0 });
    expect(body.outcomes.map((o) => o.note)).toEqual([
      expect.stringMatching(/^Recorded the start of run r1/),
      expect.stringMatching(/^Recorded run r1 as failed/),
    ]);
    const row = await run("r1");
    expect(row).toMatchObject({ env_id: "env-1", name: "checkout suite", runtime: "linux-large", outcome: "failed", duration_ms: 29_500 });
    expect(new Date(row.started_at).toISOString()).toBe(start.occurredAt);
    expect(new Date(row.finished_at).toISOString()).toBe(end.occurredAt);
  });

  it("a late run.started after run.finished fills in the start and never reopens the run", async () => {
    await send([finished("r2", 10_000, "passed")]);
    expect(await run("r2")).toMatchObject({ outcome: "passed", started_at: null });
    const late = started("r2", 20_000);
    await send([late]);
    const row = await run("r2");
    expect(row.outcome).toBe("passed");
    expect(row.finished_at).not.toBeNull();
    expect(new Date(row.started_at).toISOString()).toBe(late.occurredAt);
  });

  it("the earliest start and the earliest end stand, whatever order they arrive in; the others carry a note", async () => {
    const early = finished("r3", 50_000, "passed");
    const later = finished("r3", 40_000, "errored");
    await send([later]);
    const body = await send([early, started("r3", 90_000), started("r3", 95_000)]);
    expect((await run("r3")).outcome).toBe("passed");
    // The two starts in one batch: the earlier is applied, the other is noted.
    expect(body.outcomes[1]!.note).toMatch(/already has an earlier start/);
    expect(body.outcomes[2]!.note).toMatch(/^Recorded the start/);
    const again = await send([finished("r3", 45_000, "failed")]);
    expect(again.outcomes[0]!.note).toMatch(/already finished earlier/);
    expect((await run("r3")).outcome).toBe("passed");
  });

  it("a retry changes nothing: the batch is answered as duplicates and the records stay as they were", async () => {
    const batch = [
      started("r4", 60_000),
      finished("r4", 30_000),
      makeEvent({ type: "verdict.recorded", occurredAt: isoAgo(20_000), payload: { runId: "r4", name: "login", verdict: "pass" } }),
    ];
    await send(batch);
    const before = { run: await run("r4"), verdicts: await rows("SELECT * FROM run_verdicts WHERE org_id = $1") };
    const retry = await send(batch);
    expect(retry).toMatchObject({ status: 202, accepted: 0, duplicates: 3 });
    expect({ run: await run("r4"), verdicts: await rows("SELECT * FROM run_verdicts WHERE org_id = $1") }).toEqual(before);
  });
});

describe("verdicts, artifacts, goldens, network decisions", () => {
  const verdict = (name: string, value: string, ago: number) =>
    makeEvent({ type: "verdict.recorded", envId: "env-1", occurredAt: isoAgo(ago), payload: { runId: "r5", name, verdict: value, detail: `${value}!` } });

  it("keeps the latest verdict of each check, whatever the arrival order", async () => {
    await send([verdict("login", "fail", 10_000)]);
    const stale = await send([verdict("login", "pass", 20_000), verdict("search", "warn", 15_000)]);
    expect(stale.outcomes[0]!.note).toMatch(/later verdict on login of run r5 is already recorded/);
    expect(await rows("SELECT name, verdict, detail FROM run_verdicts WHERE org_id = $1 ORDER BY name")).toEqual([
      { name: "login", verdict: "fail", detail: "fail!" },
      { name: "search", verdict: "warn", detail: "warn!" },
    ]);
  });

  it("records artifact metadata only, the latest report of a name standing", async () => {
    const artifact = (ago: number, sizeBytes: number) =>
      makeEvent({
        type: "artifact.stored",
        occurredAt: isoAgo(ago),
        payload: {
          runId: "r6",
          name: "report.html",
          sizeBytes,
          digest: `sha256:${"ab".repeat(32)}`,
          location: "s3://acme-artifacts/r6/report.html",
          contentType: "text/html",
        },
      });
    await send([artifact(5_000, 2048), artifact(9_000, 1024)]);
    expect(await rows("SELECT name, size_bytes::int AS size, digest, location, content_type FROM run_artifacts WHERE org_id = $1")).toEqual([
      { name: "report.html", size: 2048, digest: `sha256:${"ab".repeat(32)}`, location: "s3://acme-artifacts/r6/report.html", content_type: "text/html" },
    ]);
  });

  it("a published golden version never changes", async () => {
    const golden = (digest: string, ago: number) =>
      makeEvent({ type: "golden.published", envId: "env-1", occurredAt: isoAgo(ago), payload: { name: "homepage", version: "3", digest, runId: "r7" } });
    await send([golden("sha256:aaaa", 9_000)]);
    const body = await send([golden("sha256:bbbb", 5_000)]);
    expect(body.outcomes[0]!.note).toMatch(/already published/);
    expect(await rows("SELECT name, version, digest, run_id, env_id FROM goldens WHERE org_id = $1")).toEqual([
      { name: "homepage", version: "3", digest: "sha256:aaaa", run_id: "r7", env_id: "env-1" },
    ]);
  });

  it("records each network decision once: host, port, allowed or denied, and the rule", async () => {
    const denied = makeEvent({
      type: "network.decision",
      envId: "env-1",
      payload: { host: "api.stripe.com", port: 443, decision: "denied", rule: "default-deny" },
    });
    const allowed = makeEvent({ type: "network.decision", envId: "env-1", payload: { host: "db.internal", port: 5432, decision: "allowed" } });
    await send([denied, allowed]);
    await send([denied]);
    expect(await rows("SELECT host, port, allowed, rule FROM network_decisions WHERE org_id = $1 ORDER BY host")).toEqual([
      { host: "api.stripe.com", port: 443, allowed: false, rule: "default-deny" },
      { host: "db.internal", port: 5432, allowed: true, rule: null },
    ]);
  });

  it("keeps unknown payload fields in the stored event", async () => {
    const event = started("r8", 1000, { shard: 3 });
    await send([event]);
    expect(await rows("SELECT payload FROM events WHERE org_id = $1 AND id = $2", [event.id])).toEqual([
      { payload: { runId: "r8", name: "checkout suite", shard: 3 } },
    ]);
  });
});

describe("workload.started", () => {
  it("records when the engine started a workload run, the earliest report standing, and notes an unknown run", async () => {
    await seedEnvironment(token, "env-w");
    const runId = await seedRun(orgId, "env-w");
    const first = makeEvent({ type: "workload.started", envId: "env-w", occurredAt: isoAgo(8000), payload: { runId } });
    const body = await send([
      makeEvent({ type: "workload.started", occurredAt: isoAgo(4000), payload: { runId } }),
      first,
      makeEvent({ type: "workload.started", payload: { runId: crypto.randomUUID() } }),
    ]);
    expect(body.outcomes.map((o) => o.note)).toEqual([
      expect.stringMatching(/already has an earlier start/),
      expect.stringMatching(/^Recorded the start of workload run/),
      expect.stringMatching(/No workload run .* exists/),
    ]);
    const [row] = await rows("SELECT state, started_at FROM workload_runs WHERE org_id = $1 AND id = $2", [runId]);
    expect(row.state).toBe("requested");
    expect(new Date(row.started_at).toISOString()).toBe(first.occurredAt);
  });
});

describe("runtimes' last seen", () => {
  it("an event naming a registered runtime moves its last seen time forward, never back", async () => {
    await rows("INSERT INTO runtimes (org_id, name) VALUES ($1, 'linux-large')");
    const recent = started("r9", 5_000, { runtime: "linux-large" });
    await send([recent, finished("r9", 60_000, "passed", { runtime: "linux-large" })]);
    const [row] = await rows("SELECT last_seen_at FROM runtimes WHERE org_id = $1");
    expect(new Date(row.last_seen_at).toISOString()).toBe(recent.occurredAt);
  });
});

describe("malformed payloads", () => {
  const MALFORMED: Array<[string, unknown, RegExp]> = [
    ["run.started", {}, /`payload.runId`/],
    ["run.started", { runId: "" }, /`payload.runId`: must not be empty/],
    ["run.finished", { runId: "r" }, /`payload.outcome`/],
    ["run.finished", { runId: "r", outcome: "exploded" }, /`payload.outcome`/],
    ["run.finished", { runId: "r", outcome: "passed", durationMs: -1 }, /`payload.durationMs`/],
    ["verdict.recorded", { runId: "r", name: "x", verdict: "maybe" }, /`payload.verdict`/],
    ["verdict.recorded", { runId: "r", verdict: "pass" }, /`payload.name`/],
    ["artifact.stored", { runId: "r", name: "a", sizeBytes: 1.5, digest: "sha256:00", location: "s3://x" }, /`payload.sizeBytes`/],
    ["artifact.stored", { runId: "r", name: "a", sizeBytes: 1, digest: "not a digest", location: "s3://x" }, /`payload.digest`/],
    ["artifact.stored", { runId: "r", name: "a", sizeBytes: 1, digest: "sha256:00" }, /`payload.location`/],
    ["golden.published", { name: "g", digest: "sha256:00" }, /`payload.version`/],
    ["network.decision", { host: "x", port: 70000, decision: "allowed" }, /`payload.port`/],
    ["network.decision", { host: "x", port: 443, decision: "maybe" }, /`payload.decision`/],
    ["network.decision", { port: 443, decision: "denied" }, /`payload.host`/],
    ["workload.started", { runId: "not-a-uuid" }, /`payload.runId`/],
    ["run.started", { runId: "r", runtime: "has spaces" }, /`payload.runtime`/],
  ];

  it("rejects each alone with a reason naming the field (207), stores none of them, and accepts the rest", async () => {
    const good = started("ok", 1000);
    const bad = MALFORMED.map(([type, payload]) => makeEvent({ type, payload }));
    const body = await send([...bad, good]);
    expect(body).toMatchObject({ status: 207, accepted: 1, rejected: MALFORMED.length });
    MALFORMED.forEach(([type, , reason], i) =>
      expect({ type, outcome: body.outcomes[i] }).toEqual({ type, outcome: { id: bad[i]!.id, status: "rejected", reason: expect.stringMatching(reason) } }),
    );
    expect(await rows("SELECT id FROM events WHERE org_id = $1")).toEqual([{ id: good.id }]);
    expect(await rows("SELECT run_id FROM engine_runs WHERE org_id = $1")).toEqual([{ run_id: "ok" }]);
  });

  it("a payload that is not an object is rejected too, never a 500", async () => {
    const body = await send([makeEvent({ type: "run.finished", payload: "finished" }), makeEvent({ type: "network.decision", payload: [1, 2] })]);
    expect(body).toMatchObject({ status: 207, rejected: 2, accepted: 0 });
  });
});

describe("tenant isolation", () => {
  it("another organization's engine writes its own records; neither sees the other's through the application role", async () => {
    const other = (await seedOrganization("records-other")).id;
    const otherToken = (await seedToken(other, "engine")).token;
    await send([started("shared", 1000)]);
    await postEvents(otherToken, [finished("shared", 500, "failed")]).then((r) => r.json());
    expect(await run("shared")).toMatchObject({ outcome: null });
    const seen = await asRole("app", async (client) => {
      await client.query("BEGIN");
      await client.query("SELECT set_config('app.org_id', $1, true)", [other]);
      const { rows: found } = await client.query("SELECT org_id, outcome FROM engine_runs WHERE run_id = 'shared'");
      await client.query("ROLLBACK");
      return found;
    });
    expect(seen).toEqual([{ org_id: other, outcome: "failed" }]);
  });
});

describe("published payload shapes", () => {
  it("/openapi.json carries each record payload as a component", async () => {
    const response = await call("/openapi.json");
    const document = (await response.json()) as { components: { schemas: Record<string, { required?: string[] }> } };
    for (const [id, required] of [
      ["RunStartedPayload", ["runId"]],
      ["RunFinishedPayload", ["runId", "outcome"]],
      ["VerdictRecordedPayload", ["runId", "name", "verdict"]],
      ["ArtifactStoredPayload", ["runId", "name", "sizeBytes", "digest", "location"]],
      ["GoldenPublishedPayload", ["name", "version", "digest"]],
      ["NetworkDecisionPayload", ["host", "port", "decision"]],
      ["WorkloadStartedPayload", ["runId"]],
    ] as const) {
      expect({ id, required: document.components.schemas[id]?.required?.slice().sort() }).toEqual({ id, required: [...required].sort() });
    }
  });
});
