// Claim latency under contention: 8 engines (8 engine tokens of one organization) poll one
// environment's POST /v1/workloads/claim on the local stack (Worker under `wrangler dev`, its
// Durable Object, neon driver, bridge, PostgreSQL) while runs are requested at a steady rate; each
// engine heartbeats what it claims once. Prints p50/p99 of claims (those that got a run and empty
// polls apart) and of heartbeats, then checks every requested run was claimed exactly once and none
// was lost, in the answers and in the database. Prints figures; asserts nothing else.
//   BENCH_RUNS   runs requested (default 200)
//   BENCH_RATE   runs requested per second (default 20)
//   BENCH_POLL_MS  an engine's pause after an empty poll (default 20)
import { sql } from "drizzle-orm";
import { inTenant } from "../db/transaction";
import { withBenchWorker } from "./local-worker";
import { createOrganization } from "../worker/organizations/store";
import { issueToken } from "../worker/tokens/issue";
import { defineWorkload, requestRun } from "../worker/workloads/requests";

const ENGINES = 8;
const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 20);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values: number[], p: number): string {
  if (values.length === 0) return "-";
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!.toFixed(1);
}

async function main() {
  await withBenchWorker({}, async ({ pool, base }) => {
    const org = await createOrganization(pool.connect, { slug: "bench-claim", actorLabel: "bench" });
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
    // Warm every engine's path (isolate, Durable Object, pools) before measuring.
    for (const token of tokens) await post(token, "/v1/workloads/claim", { envId });

    const requested: string[] = [];
    const claimedBy = new Map<string, number[]>();
    const claimRunMs: number[] = [];
    const claimEmptyMs: number[] = [];
    const heartbeatMs: number[] = [];
    const failures: string[] = [];
    let producing = true;

    const producer = (async () => {
      const started = performance.now();
      for (let i = 0; i < RUNS; i++) {
        const due = started + (i * 1000) / RATE;
        if (due > performance.now()) await sleep(due - performance.now());
        requested.push(await inTenant(pool.connect, org.id, (tx) => requestRun(tx, org.id, envId, versionId)));
      }
      producing = false;
    })();

    const engine = async (n: number) => {
      const token = tokens[n]!;
      // Until everything requested has been claimed (a claim landing after the last request included).
      while (producing || [...claimedBy.keys()].length < requested.length) {
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
          await sleep(POLL_MS);
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

    const twice = [...claimedBy].filter(([, engines]) => engines.length > 1).length;
    const lost = requested.filter((id) => !claimedBy.has(id)).length;
    const { rows } = await inTenant(pool.connect, org.id, (tx) =>
      tx.execute<{ state: string; count: string }>(sql`SELECT state, count(*) FROM workload_runs WHERE org_id = ${org.id} GROUP BY state`),
    );

    console.log(`claim: ${ENGINES} engines on one environment, ${RUNS} runs requested at ${RATE}/s, ${seconds.toFixed(1)} s`);
    console.log("what                    count   p50 ms   p99 ms");
    const line = (what: string, values: number[]) =>
      console.log(`${what.padEnd(22)}  ${String(values.length).padStart(5)}  ${percentile(values, 50).padStart(7)}  ${percentile(values, 99).padStart(7)}`);
    line("claim (got a run)", claimRunMs);
    line("claim (nothing waits)", claimEmptyMs);
    line("claim (all)", [...claimRunMs, ...claimEmptyMs]);
    line("heartbeat", heartbeatMs);
    console.log(`runs requested ${requested.length}, claimed ${claimedBy.size}, claimed twice ${twice}, lost ${lost}; failed calls ${failures.length}`);
    console.log(`in the database: ${rows.map((row) => `${row.state} ${row.count}`).join(", ")}`);
  });
}

await main();
