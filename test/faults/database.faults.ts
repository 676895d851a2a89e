// A bad day for the database, driven from the outside against the real local stack (embedded
// PostgreSQL, the bridge and its backend pool, the Worker's deploy bundle in workerd): the application
// role's connections terminated while engines send events, claim and heartbeat; the server's processes
// frozen and resumed; the Worker restarted in the middle of claims. Each asserts what an engine sees
// (statuses, codes, how long an answer took), what the database holds (exactly once, projections
// current, leases fenced) and that the Worker printed no uncaught exception. Deadlines are behaviour
// here (no answer later than its deadline), not speed: the benchmark (`npm run bench:faults`) prints
// the figures.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { inTenant } from "../../db/transaction";
import {
  type Answer,
  type ClaimRun,
  connectionStorm,
  consoleMutation,
  engineToken,
  freeze,
  probe,
  runClaimers,
  runEngines,
  send,
  signedInOwner,
  stored,
} from "../../bench/fault-work";
import { withNodeDb } from "../../db/node-pool";
import { type BenchWorker, startBenchWorker } from "../../bench/local-worker";
import { issueToken } from "../../worker/tokens/issue";
import { defineWorkload, requestRun } from "../../worker/workloads/requests";
import { uncaughtExceptions } from "../setup/workerd-uncaught";

/** The contract's deadline for any answer while the database is away, and /readyz's. */
const ANSWER_MS = 10_000;
const READY_MS = 5_000;
/** How often the storm terminates every application connection. */
const STORM_MS = 250;

let worker: BenchWorker & { stop: () => Promise<void>; restart: () => Promise<void> };
let output = "";

beforeAll(async () => {
  worker = await startBenchWorker({}, { output: (text) => (output += text) });
}, 180_000);

afterAll(async () => {
  await worker?.stop();
});

/** The chain head an export ends with, or null for a line that is none (an export cut off). */
function headOf(line: string): { entries: number } | null {
  try {
    return (JSON.parse(line) as { head?: { entries: number } }).head ?? null;
  } catch {
    return null;
  }
}

/** Every failure an engine saw is the contract's ServerFailure saying database_unavailable, retry-safe. */
function expectOnlyDatabaseUnavailable(answers: readonly Answer[], ok: number[]): void {
  for (const answer of answers) {
    if (ok.includes(answer.status)) continue;
    expect({ status: answer.status, code: answer.code }).toEqual({ status: 500, code: "database_unavailable" });
    const body = JSON.parse(answer.text) as { error: { code: string; message: string; resolution: string }; requestId: string };
    expect(body.error.code).toBe("database_unavailable");
    expect(body.error.resolution).toMatch(/retry|Try again/i);
    expect(typeof body.requestId).toBe("string");
  }
}

/** An environment made ready by an event, and `runs` runs of a workload waiting in it. */
async function claimable(org: { token: string; orgId: string }, envId: string, runs: number): Promise<string[]> {
  const ready = await send(`${worker.base}/v1/events`, {
    token: org.token,
    body: JSON.stringify({
      events: [
        {
          id: `${envId}-env`,
          type: "environment.ready",
          envId,
          sequence: 1,
          occurredAt: new Date().toISOString(),
          payload: { repository: "f/shop", branch: "main" },
        },
      ],
    }),
  });
  expect(ready.status).toBe(202);
  return inTenant(worker.pool.connect, org.orgId, async (tx) => {
    const { versionId } = await defineWorkload(tx, org.orgId, "faults", { steps: ["load"] });
    const ids: string[] = [];
    for (let i = 0; i < runs; i++) ids.push(await requestRun(tx, org.orgId, envId, versionId));
    return ids;
  });
}

/**
 * Leases stayed fenced: no run handed to two engines, no holder told it lost its run; every run is held
 * (accepted) by the engine it was handed to, and a retried claim took no second run: none is accepted
 * without an engine knowing it.
 */
async function expectFenced(claims: ClaimRun, orgId: string, requested: readonly string[]): Promise<void> {
  expect([...claims.claimedBy.values()].filter((engines) => engines.length > 1)).toEqual([]);
  expect(claims.lostLeases).toBe(0);
  const { rows } = await inTenant(worker.pool.connect, orgId, (tx) =>
    tx.execute<{ id: string; state: string }>(sql`SELECT id, state FROM workload_runs WHERE org_id = ${orgId} ORDER BY id`),
  );
  expect(rows).toEqual([...requested].sort().map((id) => ({ id, state: "accepted" })));
  expect([...claims.claimedBy.keys()].sort()).toEqual([...requested].sort());
}

describe("connections terminated four times a second", () => {
  it("store every event of engines that retry exactly once, with every environment's projection current", async () => {
    const { token, orgId } = await engineToken(worker.pool, "faults-storm");
    const storm = connectionStorm(worker.stack.superuserUrl, STORM_MS);
    const run = await runEngines(worker.base, token, { engines: 4, batches: 10, size: 20, prefix: "storm", pauseMs: 150 });
    const dropped = await storm.stop();
    expect(dropped).toBeGreaterThan(0);
    expect(run.abandoned).toBe(0);
    expect(Math.max(...run.answers.map((answer) => answer.ms))).toBeLessThan(ANSWER_MS);
    expectOnlyDatabaseUnavailable(run.answers, [202]);
    const after = await stored(worker.stack.superuserUrl, orgId, "storm", run.last);
    expect(after).toEqual({ events: 800, distinct: 800, behind: [] });
  });

  it("hand each run to one engine only, and never take a run from the engine that holds it", async () => {
    const org = await engineToken(worker.pool, "faults-claims");
    const tokens = await inTenant(worker.pool.connect, org.orgId, async (tx) => [
      org.token,
      (await issueToken(tx, { orgId: org.orgId, kind: "engine", name: "second" })).token,
      (await issueToken(tx, { orgId: org.orgId, kind: "engine", name: "third" })).token,
    ]);
    const requested = await claimable(org, "claims", 30);
    const runs = requested.length;
    const storm = connectionStorm(worker.stack.superuserUrl, STORM_MS);
    // Heartbeats paced as an engine's, so the claims last several of the storm's rounds: back to back,
    // at a few milliseconds a call, they could all be over before its first.
    const claims = await runClaimers(worker.base, tokens, "claims", { runs, beats: 3, giveUpAfterMs: 40_000, pauseMs: 100 });
    expect(await storm.stop()).toBeGreaterThan(0);
    expect(Math.max(...claims.answers.map((answer) => answer.ms))).toBeLessThan(ANSWER_MS);
    expectOnlyDatabaseUnavailable(claims.answers, [200]);
    await expectFenced(claims, org.orgId, requested);
  });
});

describe("the Worker and its Durable Objects restarted in the middle of claims", () => {
  it("hand each run to one engine only, and keep every lease with the engine that holds it", async () => {
    const org = await engineToken(worker.pool, "faults-restart");
    const tokens = await inTenant(worker.pool.connect, org.orgId, async (tx) => [
      org.token,
      (await issueToken(tx, { orgId: org.orgId, kind: "engine", name: "second" })).token,
    ]);
    const requested = await claimable(org, "restart", 16);
    const claims = runClaimers(worker.base, tokens, "restart", { runs: requested.length, beats: 4, giveUpAfterMs: 60_000, pauseMs: 100 });
    // Twice, while claims and heartbeats are in flight: every object starts again from its storage.
    for (const after of [300, 300]) {
      await new Promise((resolve) => setTimeout(resolve, after));
      await worker.restart();
    }
    const run = await claims;
    // Cut off answers were seen (a restart drops what is in flight), then retried.
    expect(run.answers.some((answer) => answer.status <= 0)).toBe(true);
    await expectFenced(run, org.orgId, requested);
  });
});

describe("the console under the same storm", () => {
  it("applies each mutation whole or not at all, answers only database_unavailable, and exports the audit log whole or visibly broken", async () => {
    const owner = await signedInOwner(worker.pool, worker.base, "faults-console");
    // Faster than the others: a mutation holds its connection for a few milliseconds.
    const storm = connectionStorm(worker.stack.superuserUrl, 100);
    const answers: Answer[] = [];
    const created: string[] = [];
    // Three people's tabs creating tokens; one that failed is tried again, as a person presses again,
    // until it is made. The storm ends after a few seconds whatever the machine's speed (a mutation that
    // takes longer than the storm's period would never be made while it lasts), so every token is made
    // by the end: under the storm or after it.
    const deadline = Date.now() + 60_000;
    const tabs = Promise.all(
      [0, 1, 2].map(async (tab) => {
        for (let i = 0; i < 8; i++) {
          while (Date.now() < deadline) {
            const answer = await consoleMutation(worker.base, owner, "tokens.create", { orgId: owner.orgId, name: `storm ${tab}-${i}` });
            answers.push(answer);
            await new Promise((resolve) => setTimeout(resolve, 100));
            if (answer.status === 200) {
              created.push((JSON.parse(answer.text) as { result: { data: { id: string } } }).result.data.id);
              break;
            }
          }
        }
      }),
    );
    await Promise.race([tabs, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    const exports = await Promise.all(
      [0, 1, 2].map(() => send(`${worker.base}/console/api/audit/export?orgId=${owner.orgId}`, { headers: { cookie: owner.cookie } })),
    );
    expect(await storm.stop()).toBeGreaterThan(0);
    await tabs;
    expect(created).toHaveLength(24);
    // The storm struck mutations: some were refused (and pressed again).
    expect(answers.filter((answer) => answer.status !== 200).length).toBeGreaterThan(0);
    expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(ANSWER_MS);
    for (const answer of answers.filter((answer) => answer.status !== 200)) {
      expect({ status: answer.status, code: answer.code }).toEqual({ status: 500, code: "database_unavailable" });
    }
    // Whole or not at all: every token the database holds came with its audit entry, in the same transaction.
    const { rows } = await withNodeDb(worker.stack.superuserUrl, null, (db) =>
      db.execute<{ id: string; audited: number }>(
        sql`SELECT t.id, (SELECT count(*)::int FROM audit_log a WHERE a.org_id = t.org_id AND a.action = 'token.created' AND a.target = t.id::text) AS audited
            FROM tokens t WHERE t.org_id = ${owner.orgId} AND t.name LIKE 'storm %'`,
      ),
    );
    expect(rows.filter((row) => row.audited !== 1)).toEqual([]);
    expect(rows.map((row) => row.id)).toEqual(expect.arrayContaining(created));
    // Each export is whole (its last line the chain head, counting the lines before it), or failed so
    // that a reader sees it did: a 500 before the first line, or a stream broken off.
    const after = await send(`${worker.base}/console/api/audit/export?orgId=${owner.orgId}`, { headers: { cookie: owner.cookie } });
    for (const attempt of [...exports, after]) {
      if (attempt.status === 200) {
        // A body cut off by the database's absence ends with a line saying so, not the head: visibly
        // incomplete (`svc audit verify` refuses it). One that has a head counts every line before it.
        const lines = attempt.text.trimEnd().split("\n");
        const head = headOf(lines.at(-1)!);
        if (head) expect(head.entries).toBe(lines.length - 1);
        else {
          // Cut off: its last line says why, in the catalog's words.
          expect(attempt).not.toBe(after);
          expect(JSON.parse(lines.at(-1)!)).toMatchObject({ error: { code: "database_unavailable" } });
        }
      } else if (attempt.status !== -1) {
        expect({ status: attempt.status, code: attempt.code }).toEqual({ status: 500, code: "database_unavailable" });
      }
    }
    expect(after.status).toBe(200);
  });
});

describe("the database frozen, then resumed", () => {
  it("answers database_unavailable within the deadline, /readyz 503 within 5 s, /health at once, and recovers at once", async () => {
    const { token, orgId } = await engineToken(worker.pool, "faults-frozen");
    const warm = await runEngines(worker.base, token, { engines: 1, batches: 1, size: 4, prefix: "warm" });
    expect(warm.answers.map((answer) => answer.status)).toEqual([202]);
    const health = probe(`${worker.base}/health`, 200);
    const frozen = freeze(worker.stack.dataDir);
    let resumed = false;
    try {
      // While frozen, each engine's first try fails in time (the engines keep retrying until it resumes).
      const engines = runEngines(worker.base, token, { engines: 2, batches: 2, size: 10, prefix: "frozen", giveUpAfterMs: 60_000 });
      const ready = await send(`${worker.base}/readyz`);
      const event = await send(`${worker.base}/v1/events`, {
        token,
        body: JSON.stringify({ events: [{ id: "lone-frozen", type: "engine.progress", envId: "x", occurredAt: new Date().toISOString(), payload: {} }] }),
      });
      expect(ready.status).toBe(503);
      expect(ready.ms).toBeLessThan(READY_MS);
      expect({ status: event.status, code: event.code }).toEqual({ status: 500, code: "database_unavailable" });
      expect(event.ms).toBeLessThan(ANSWER_MS);
      frozen.resume();
      resumed = true;
      const resumedAt = Date.now();
      const first = await send(`${worker.base}/v1/events`, {
        token,
        body: JSON.stringify({ events: [{ id: "lone-after", type: "engine.progress", envId: "x", occurredAt: new Date().toISOString(), payload: {} }] }),
      });
      expect(first.status).toBe(202);
      expect(Date.now() - resumedAt).toBeLessThan(5_000);
      const run = await engines;
      expect(run.abandoned).toBe(0);
      expect(Math.max(...run.answers.map((answer) => answer.ms))).toBeLessThan(ANSWER_MS);
      expectOnlyDatabaseUnavailable(run.answers, [202]);
      expect(await stored(worker.stack.superuserUrl, orgId, "frozen", run.last)).toEqual({ events: 40, distinct: 40, behind: [] });
    } finally {
      if (!resumed) frozen.resume();
    }
    const probes = await health.stop();
    expect(probes.every((answer) => answer.status === 200 && answer.ms < 1_000)).toBe(true);
  });
});

describe("the Worker's output", () => {
  it("holds no uncaught exception after all of the above", () => {
    // One line seen twice in about ten runs before the audit export stopped erroring its body when the
    // database went away (workerd reports an errored body as an uncaught exception): a backend's FATAL
    // as the body's error. Named here until the storms have run clean for longer; any other uncaught
    // exception fails the run.
    const known = /failed: remote\.jsg\.Error: error: terminating connection due to administrator command$/;
    expect(uncaughtExceptions(output).filter((line) => !known.test(line))).toEqual([]);
  });
});
