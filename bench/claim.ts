// Claim latency under contention, beside its floor: 8 engines (8 engine tokens of one organization)
// poll one environment's POST /v1/workloads/claim on the local stack (the Worker's deploy bundle in
// workerd, its Durable Object, neon driver, bridge, PostgreSQL) while runs are requested at a steady
// rate; each engine heartbeats what it claims once (bench/claim-work.ts). Then the same engines,
// runs and rate claim straight from PostgreSQL with the minimal queue statement, from this process
// (claimFloor): the floor. Prints p50/p99 of claims (those that got a run and empty polls apart) and
// heartbeats for both, their ratios (targets: the service within 3x the floor), and checks every
// requested run was claimed exactly once and none was lost. `--json` prints one document instead.
// Prints figures; asserts nothing else.
//   BENCH_RUNS   runs requested (default 200)
//   BENCH_RATE   runs requested per second (default 20)
//   BENCH_POLL_MS  an engine's pause after an empty poll (default 20)
import { ENGINES, claimFloor, claimLatency } from "./claim-work";
import { claimRatio, claimSummary, percentile } from "./figures";
import { withBenchWorker } from "./local-worker";

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 20);
const JSON_OUTPUT = process.argv.includes("--json");

async function main() {
  await withBenchWorker({}, async (worker) => {
    const options = { runs: RUNS, ratePerSecond: RATE, pollMs: POLL_MS, backlog: 0, slug: "bench-claim" };
    const service = await claimLatency(worker, options);
    const floor = await claimFloor(worker, options);
    const [s, f] = [claimSummary(service), claimSummary(floor)];
    const document = {
      service: s,
      floor: f,
      ratio: claimRatio(s, f),
      claimedTwice: service.claimedTwice + floor.claimedTwice,
      lost: service.lost + floor.lost,
    };
    if (JSON_OUTPUT) {
      console.log(JSON.stringify(document));
      return;
    }
    console.log(
      `claim: ${ENGINES} engines on one environment, ${RUNS} runs requested at ${RATE}/s; service ${service.seconds.toFixed(1)} s, floor ${floor.seconds.toFixed(1)} s`,
    );
    console.log("what                    side      count   p50 ms   p99 ms");
    const ms = (values: number[], p: number) => (values.length === 0 ? "-" : percentile(values, p).toFixed(1));
    const line = (what: string, side: string, values: number[]) =>
      console.log(`${what.padEnd(22)}  ${side.padEnd(7)}  ${String(values.length).padStart(5)}  ${ms(values, 50).padStart(7)}  ${ms(values, 99).padStart(7)}`);
    for (const [side, figures] of [
      ["service", service],
      ["floor", floor],
    ] as const) {
      line("claim (got a run)", side, figures.claimRunMs);
      line("claim (nothing waits)", side, figures.claimEmptyMs);
      line("claim (all)", side, [...figures.claimRunMs, ...figures.claimEmptyMs]);
      line("heartbeat", side, figures.heartbeatMs);
    }
    const { ratio: r } = document;
    console.log(
      `service / floor: claims p50 ${r.claimP50}x, p99 ${r.claimP99}x; heartbeats p50 ${r.heartbeatP50}x, p99 ${r.heartbeatP99}x (target: within 3x)`,
    );
    for (const [side, figures] of [
      ["service", service],
      ["floor", floor],
    ] as const) {
      console.log(
        `${side}: runs requested ${figures.requested}, claimed ${figures.claimed}, claimed twice ${figures.claimedTwice}, lost ${figures.lost}; failed calls ${figures.failures.length}; ` +
          `in the database: ${figures.states.map((row) => `${row.state} ${row.count}`).join(", ")}`,
      );
    }
  });
}

await main();
