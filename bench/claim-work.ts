// The work of `bench:claim`, shared with `bench:scale`: 8 engines (8 engine tokens of one
// organization) poll one environment's POST /v1/workloads/claim while runs are requested at a steady
// rate; each engine heartbeats what it claims once. `backlog` runs are waiting in the environment
// before the engines start (claimed first: the oldest run is claimed first); with one, the engines
// stop after `runs` claims, the rest of it still waiting.
import { sql } from "drizzle-orm";
import { inTenant } from "../db/transaction";
import type { BenchWorker } from "./local-worker";
import { createOrganization } from "../worker/organizations/store";
import { issueToken } from "../worker/tokens/issue";
import { defineWorkload, requestRun } from "../worker/workloads/requests";

export const ENGINES = 8;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ClaimOptions {
  runs: number;
  ratePerSecond: number;
  pollMs: number;
  /** Runs already waiting in the environment when the engines start. */
  backlog: number;
  slug: string;
}

export interface ClaimFigures {
  seconds: number;
  claimRunMs: number[];
  claimEmptyMs: number[];
  heartbeatMs: number[];
  requested: number;
  claimed: number;
  claimedTwice: number;
  lost: number;
  failures: string[];
  /** workload_runs of the organization by state, from the database afterwards. */
  states: Array<{ state: string; count: string }>;
}

export async function claimLatency({ pool, base }: BenchWorker, options: ClaimOptions): Promise<ClaimFigures> {
  const org = await createOrganization(pool.connect, { slug: options.slug, actorLabel: "bench" });
  const tokens = await inTenant(pool.connect, org.id, async (tx) => {
    const issued: string[] = [];
    for (let i = 0; i < ENGINES; i++) issued.push((await issueToken(tx, { orgId: org.id, kind: "engine", name: `bench-${i}` })).token);
    return issued;
  });
  const envId = "env-claim-bench";
  const post = async (token: string, path: string, json: unknown) => {
    const response = await fetch(base + path, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(json),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const reported = await post(tokens[0]!, "/v1/events", {
    events: [
      {
        id: crypto.randomUUID(),
        type: "environment.ready",
        envId,
        sequence: 1,
        occurredAt: new Date().toISOString(),
        payload: { repository: "bench/shop", branch: "main" },
      },
    ],
  });
  if (reported.status !== 202) throw new Error(`reporting the environment: ${reported.status}`);
  const { versionId } = await inTenant(pool.connect, org.id, (tx) => defineWorkload(tx, org.id, "bench", { steps: ["load"] }));
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
  }
  // Warm every engine's path (isolate, Durable Object, pools) before measuring: with a backlog, these claim its first runs.
  const claimedBy = new Map<string, number[]>();
  for (const [n, token] of tokens.entries()) {
    const claimed = await post(token, "/v1/workloads/claim", { envId });
    const run = claimed.body.run as { id: string } | null;
    if (run) claimedBy.set(run.id, [n]);
  }

  const claimRunMs: number[] = [];
  const claimEmptyMs: number[] = [];
  const heartbeatMs: number[] = [];
  const failures: string[] = [];
  let producing = true;

  const producer = (async () => {
    const started = performance.now();
    for (let i = 0; i < options.runs; i++) {
      const due = started + (i * 1000) / options.ratePerSecond;
      if (due > performance.now()) await sleep(due - performance.now());
      requested.push(await inTenant(pool.connect, org.id, (tx) => requestRun(tx, org.id, envId, versionId)));
    }
    producing = false;
  })();

  const engine = async (n: number) => {
    const token = tokens[n]!;
    // Until everything requested has been claimed (a claim landing after the last request included);
    // with a backlog, until `runs` claims were measured: draining it would outlast the leases, whose
    // lapsed runs (older than the rest) would then be claimed again and again.
    while (producing || (options.backlog === 0 ? claimedBy.size < requested.length : claimRunMs.length < options.runs)) {
      const started = performance.now();
      const claimed = await post(token, "/v1/workloads/claim", { envId });
      const took = performance.now() - started;
      if (claimed.status !== 200) {
        failures.push(`claim ${claimed.status}`);
        continue;
      }
      const run = claimed.body.run as { id: string; lease: { id: string } } | null;
      if (!run) {
        claimEmptyMs.push(took);
        await sleep(options.pollMs);
        continue;
      }
      claimRunMs.push(took);
      claimedBy.set(run.id, [...(claimedBy.get(run.id) ?? []), n]);
      const beatStarted = performance.now();
      const beat = await post(token, `/v1/workloads/runs/${run.id}/heartbeat`, { leaseId: run.lease.id });
      heartbeatMs.push(performance.now() - beatStarted);
      if (beat.status !== 200) failures.push(`heartbeat ${beat.status}`);
    }
  };
  const started = performance.now();
  await Promise.all([producer, ...Array.from({ length: ENGINES }, (_, n) => engine(n))]);
  const seconds = (performance.now() - started) / 1000;

  const { rows: states } = await inTenant(pool.connect, org.id, (tx) =>
    tx.execute<{ state: string; count: string }>(sql`SELECT state, count(*) FROM workload_runs WHERE org_id = ${org.id} GROUP BY state`),
  );
  // A run not claimed is lost unless it is still waiting (with a backlog, most of it is).
  const unclaimed = requested.filter((id) => !claimedBy.has(id));
  const { rows: waiting } = await inTenant(pool.connect, org.id, (tx) =>
    tx.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM workload_runs WHERE id = ANY(${sql.param(unclaimed)}) AND state = 'requested'`),
  );
  return {
    seconds,
    claimRunMs,
    claimEmptyMs,
    heartbeatMs,
    requested: requested.length,
    claimed: claimedBy.size,
    claimedTwice: [...claimedBy].filter(([, engines]) => engines.length > 1).length,
    lost: unclaimed.length - waiting[0]!.n,
    failures,
    states,
  };
}
