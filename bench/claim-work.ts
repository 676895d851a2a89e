// The work of `bench:claim`, shared with `bench:scale`: 8 engines (8 engine tokens of one
// organization) poll one environment's POST /v1/workloads/claim while runs are requested at a steady
// rate; each engine heartbeats what it claims once. `backlog` runs are waiting in the environment
// before the engines start (claimed first: the oldest run is claimed first); with one, the engines
// stop after `runs` claims, the rest of it still waiting. `claimFloor` runs the same engines against
// the minimal queue a database gives, from the benchmark's own process: the floor the service is
// measured against.
import { sql } from "drizzle-orm";
import { withNodeDb } from "../db/node-pool";
import { inTenant } from "../db/transaction";
import { post } from "./engine-http";
import type { ClaimFigures } from "./figures";
import type { BenchWorker } from "./local-worker";
import { createOrganization } from "../worker/organizations/store";
import { issueToken } from "../worker/tokens/issue";
import { defineWorkload, requestRun } from "../worker/workloads/requests";

export const ENGINES = 8;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Until the `i`th request's time, at `perSecond` from `started`. */
const slot = async (started: number, i: number, perSecond: number) => {
  const due = started + (i * 1000) / perSecond;
  if (due > performance.now()) await sleep(due - performance.now());
};

export interface ClaimOptions {
  runs: number;
  ratePerSecond: number;
  pollMs: number;
  /** Runs already waiting in the environment when the engines start. */
  backlog: number;
  /**
   * One claim at a time instead of engines polling: at `ratePerSecond` a run is requested, then one
   * engine (each in turn) claims and heartbeats. Every claim then meets the same cadence and load
   * whatever waits in the queue (with a backlog it takes the oldest waiting run, from an empty queue
   * the one just requested), so the two differ by the queue alone: a polling engine pauses after an
   * empty poll only, so with a backlog it claims back to back, and on this 2-core machine a process
   * kept busy answers faster than one that slept (bench/README.md).
   */
  inTurn?: boolean;
  /**
   * With a backlog: ANALYZE workload_runs once it is made, so the planner's statistics have seen it
   * (autovacuum would, in time); without, a claim is planned on statistics that know nothing of the
   * environment's thousands of runs (bench/README.md).
   */
  analyzed?: boolean;
  slug: string;
}

export async function claimLatency(worker: BenchWorker, options: ClaimOptions): Promise<ClaimFigures> {
  const { pool, base } = worker;
  const envId = "env-claim-bench";
  const { org, tokens, versionId } = await benchEnvironment(worker, options.slug, envId, ENGINES);
  const send = async (token: string, path: string, json: unknown) => {
    const { status, text } = await post(base + path, token, JSON.stringify(json));
    return { status, body: JSON.parse(text) as Record<string, unknown> };
  };
  const requested: string[] = [];
  if (options.backlog > 0) {
    // The waiting runs as requestRun leaves them, made in one statement (they are not what is timed).
    const [first] = await inTenant(pool.connect, org.id, async (tx) => [await requestRun(tx, org.id, envId, versionId)]);
    const { rows } = await inTenant(pool.connect, org.id, (tx) =>
      tx.execute<{ id: string }>(sql`INSERT INTO workload_runs (org_id, env_id, workload_id, version_id, requested_at, deadline_at)
        SELECT org_id, env_id, workload_id, version_id, requested_at + make_interval(secs => n / 1000.0), deadline_at
        FROM workload_runs, generate_series(1, ${options.backlog - 1}) AS n WHERE id = ${first!}
        RETURNING id`),
    );
    requested.push(first!, ...rows.map((row) => row.id));
    if (options.analyzed) await withNodeDb(worker.stack.superuserUrl, null, (db) => db.execute(sql`ANALYZE workload_runs`));
  }
  const service: Claimer = {
    claim: async (n) => {
      const claimed = await send(tokens[n]!, "/v1/workloads/claim", { envId });
      if (claimed.status !== 200) return { failed: `claim ${claimed.status}` };
      const run = claimed.body.run as { id: string; lease: { id: string } } | null;
      return { run: run && { id: run.id, leaseId: run.lease.id } };
    },
    beat: async (n, run) => {
      const beat = await send(tokens[n]!, `/v1/workloads/runs/${run.id}/heartbeat`, { leaseId: run.leaseId });
      return beat.status === 200 ? null : `heartbeat ${beat.status}`;
    },
  };
  const produce = () => inTenant(pool.connect, org.id, (tx) => requestRun(tx, org.id, envId, versionId));
  return tally(pool, org.id, requested, await (options.inTurn ? claimsInTurn : runEngines)(service, produce, requested, options));
}

/** The figures of a run of the engines, with the organization's runs by state and what was lost, from the database. */
async function tally(pool: BenchWorker["pool"], orgId: string, requested: string[], engines: EngineFigures): Promise<ClaimFigures> {
  const { claimedBy, ...figures } = engines;
  const { rows: states } = await inTenant(pool.connect, orgId, (tx) =>
    tx.execute<{ state: string; count: string }>(sql`SELECT state, count(*) FROM workload_runs WHERE org_id = ${orgId} GROUP BY state`),
  );
  // A run not claimed is lost unless it is still waiting (with a backlog, most of it is).
  const unclaimed = requested.filter((id) => !claimedBy.has(id));
  const { rows: waiting } = await inTenant(pool.connect, orgId, (tx) =>
    tx.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM workload_runs WHERE id = ANY(${sql.param(unclaimed)}) AND state = 'requested'`),
  );
  return {
    ...figures,
    requested: requested.length,
    claimed: claimedBy.size,
    claimedTwice: [...claimedBy].filter(([, holders]) => holders.length > 1).length,
    lost: unclaimed.length - waiting[0]!.n,
    states,
  };
}

/** A run as an engine holds it. */
interface Held {
  id: string;
  leaseId: string;
}

/** How engine `n` claims and keeps a run: the service's routes, or the floor's statements. */
interface Claimer {
  claim: (n: number) => Promise<{ run: Held | null } | { failed: string }>;
  /** A failure's words, or null when the heartbeat held the lease. */
  beat: (n: number, run: Held) => Promise<string | null>;
}

interface EngineFigures {
  seconds: number;
  claimRunMs: number[];
  claimEmptyMs: number[];
  heartbeatMs: number[];
  failures: string[];
  /** Each claimed run and the engines that got it. */
  claimedBy: Map<string, number[]>;
}

/**
 * ENGINES engines claim through `claimer` while `produce` requests `options.runs` runs at the rate;
 * each heartbeats what it claims once. Each engine's path is warmed first (with a backlog, those
 * claims take its first runs).
 */
async function runEngines(claimer: Claimer, produce: () => Promise<string>, requested: string[], options: ClaimOptions): Promise<EngineFigures> {
  const claimedBy = await warmed(claimer);
  const figures = noFigures();
  let producing = true;
  const producer = (async () => {
    const started = performance.now();
    for (let i = 0; i < options.runs; i++) {
      await slot(started, i, options.ratePerSecond);
      requested.push(await produce());
    }
    producing = false;
  })();

  const engine = async (n: number) => {
    // Until everything requested has been claimed (a claim landing after the last request included);
    // with a backlog, until `runs` claims were measured: draining it would outlast the leases, whose
    // lapsed runs (older than the rest) would then be claimed again and again.
    while (producing || (options.backlog === 0 ? claimedBy.size < requested.length : figures.claimRunMs.length < options.runs)) {
      if ((await claimOnce(claimer, n, figures, claimedBy)) === "empty") await sleep(options.pollMs);
    }
  };
  const started = performance.now();
  await Promise.all([producer, ...Array.from({ length: ENGINES }, (_, n) => engine(n))]);
  return { seconds: (performance.now() - started) / 1000, ...figures, claimedBy };
}

type Timings = Pick<EngineFigures, "claimRunMs" | "claimEmptyMs" | "heartbeatMs" | "failures">;
const noFigures = (): Timings => ({ claimRunMs: [], claimEmptyMs: [], heartbeatMs: [], failures: [] });

/** One claim by engine `n`, timed into `figures`, and one heartbeat of the run it got. */
async function claimOnce(claimer: Claimer, n: number, figures: Timings, claimedBy: Map<string, number[]>): Promise<"run" | "empty" | "failed"> {
  const started = performance.now();
  const claimed = await claimer.claim(n);
  const took = performance.now() - started;
  if ("failed" in claimed) {
    figures.failures.push(claimed.failed);
    return "failed";
  }
  if (!claimed.run) {
    figures.claimEmptyMs.push(took);
    return "empty";
  }
  figures.claimRunMs.push(took);
  claimedBy.set(claimed.run.id, [...(claimedBy.get(claimed.run.id) ?? []), n]);
  const beatStarted = performance.now();
  const failed = await claimer.beat(n, claimed.run);
  figures.heartbeatMs.push(performance.now() - beatStarted);
  if (failed) figures.failures.push(failed);
  return "run";
}

/** Each engine's path warmed by one claim; with a backlog, those claims take its first runs (returned as claimed). */
async function warmed(claimer: Claimer): Promise<Map<string, number[]>> {
  const claimedBy = new Map<string, number[]>();
  for (let n = 0; n < ENGINES; n++) {
    const warm = await claimer.claim(n);
    if ("run" in warm && warm.run) claimedBy.set(warm.run.id, [n]);
  }
  return claimedBy;
}

/** ClaimOptions.inTurn: `options.runs` times, at the rate, a run is requested and the next engine claims once and heartbeats what it got. */
async function claimsInTurn(claimer: Claimer, produce: () => Promise<string>, requested: string[], options: ClaimOptions): Promise<EngineFigures> {
  const claimedBy = await warmed(claimer);
  const figures = noFigures();
  const started = performance.now();
  for (let i = 0; i < options.runs; i++) {
    await slot(started, i, options.ratePerSecond);
    requested.push(await produce());
    await claimOnce(claimer, i % ENGINES, figures, claimedBy);
  }
  return { seconds: (performance.now() - started) / 1000, ...figures, claimedBy };
}

/**
 * The floor: the same engines, runs and rate, claiming straight from PostgreSQL with the minimal
 * statement a queue needs (one UPDATE of the oldest waiting run picked FOR UPDATE SKIP LOCKED) and
 * heartbeating with one conditional UPDATE, each in a tenant transaction on the benchmark's own pool
 * (as many connections as an environment's object keeps: 4). No token, no plan, no deadline, no
 * alarm: what a queue costs, not what the service promises.
 */
export async function claimFloor(worker: BenchWorker, options: ClaimOptions): Promise<ClaimFigures> {
  const { pool } = worker;
  const envId = "env-claim-floor";
  const { org, versionId } = await benchEnvironment(worker, `${options.slug}-floor`, envId, 1);
  const floor: Claimer = {
    claim: async () => {
      const { rows } = await inTenant(pool.connect, org.id, (tx) =>
        tx.execute<{ id: string; lease_id: string }>(sql`UPDATE workload_runs SET state = 'accepted', lease_id = gen_random_uuid(),
            lease_expires_at = now() + interval '5 minutes', claims = claims + 1
          WHERE id = (SELECT id FROM workload_runs WHERE org_id = ${org.id} AND env_id = ${envId} AND state = 'requested'
                      ORDER BY requested_at, id FOR UPDATE SKIP LOCKED LIMIT 1)
          RETURNING id, lease_id`),
      );
      return { run: rows[0] ? { id: rows[0].id, leaseId: rows[0].lease_id } : null };
    },
    beat: async (_n, run) => {
      const { rows } = await inTenant(pool.connect, org.id, (tx) =>
        tx.execute(sql`UPDATE workload_runs SET lease_expires_at = now() + interval '5 minutes'
          WHERE id = ${run.id} AND lease_id = ${run.leaseId} AND state = 'accepted' RETURNING id`),
      );
      return rows.length === 1 ? null : "heartbeat lost its lease";
    },
  };
  const requested: string[] = [];
  const produce = () => inTenant(pool.connect, org.id, (tx) => requestRun(tx, org.id, envId, versionId));
  return tally(pool, org.id, requested, await runEngines(floor, produce, requested, { ...options, backlog: 0 }));
}

/** An organization with `tokens` engine tokens, an environment its engine reported ready, and a workload to request runs of. */
async function benchEnvironment({ pool, base }: BenchWorker, slug: string, envId: string, tokenCount: number) {
  const org = await createOrganization(pool.connect, { slug, actorLabel: "bench" });
  const tokens = await inTenant(pool.connect, org.id, async (tx) => {
    const issued: string[] = [];
    for (let i = 0; i < tokenCount; i++) issued.push((await issueToken(tx, { orgId: org.id, kind: "engine", name: `bench-${i}` })).token);
    return issued;
  });
  const event = {
    id: crypto.randomUUID(),
    type: "environment.ready",
    envId,
    sequence: 1,
    occurredAt: new Date().toISOString(),
    payload: { repository: "bench/shop", branch: "main" },
  };
  const reported = await fetch(`${base}/v1/events`, {
    method: "POST",
    headers: { authorization: `Bearer ${tokens[0]}`, "content-type": "application/json" },
    body: JSON.stringify({ events: [event] }),
  });
  if (reported.status !== 202) throw new Error(`reporting the environment: ${reported.status}`);
  const { versionId } = await inTenant(pool.connect, org.id, (tx) => defineWorkload(tx, org.id, "bench", { steps: ["load"] }));
  return { org, tokens, versionId };
}
