// Claim latency under contention: 8 engines (8 engine tokens of one organization) poll one
// environment's POST /v1/workloads/claim on the local stack (the Worker's deploy bundle in workerd,
// its Durable Object, neon driver, bridge, PostgreSQL) while runs are requested at a steady rate;
// each engine heartbeats what it claims once (bench/claim-work.ts). Prints p50/p99 of claims (those
// that got a run and empty polls apart) and of heartbeats, then checks every requested run was
// claimed exactly once and none was lost, in the answers and in the database. Prints figures;
// asserts nothing else.
//   BENCH_RUNS   runs requested (default 200)
//   BENCH_RATE   runs requested per second (default 20)
//   BENCH_POLL_MS  an engine's pause after an empty poll (default 20)
import { ENGINES, claimLatency } from "./claim-work";
import { percentile } from "./figures";
import { withBenchWorker } from "./local-worker";

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 20);

async function main() {
  await withBenchWorker({}, async (worker) => {
    const measured = await claimLatency(worker, { runs: RUNS, ratePerSecond: RATE, pollMs: POLL_MS, backlog: 0, slug: "bench-claim" });
    console.log(`claim: ${ENGINES} engines on one environment, ${RUNS} runs requested at ${RATE}/s, ${measured.seconds.toFixed(1)} s`);
    console.log("what                    count   p50 ms   p99 ms");
    const ms = (values: number[], p: number) => (values.length === 0 ? "-" : percentile(values, p).toFixed(1));
    const line = (what: string, values: number[]) =>
      console.log(`${what.padEnd(22)}  ${String(values.length).padStart(5)}  ${ms(values, 50).padStart(7)}  ${ms(values, 99).padStart(7)}`);
    line("claim (got a run)", measured.claimRunMs);
    line("claim (nothing waits)", measured.claimEmptyMs);
    line("claim (all)", [...measured.claimRunMs, ...measured.claimEmptyMs]);
    line("heartbeat", measured.heartbeatMs);
    console.log(
      `runs requested ${measured.requested}, claimed ${measured.claimed}, claimed twice ${measured.claimedTwice}, lost ${measured.lost}; failed calls ${measured.failures.length}`,
    );
    console.log(`in the database: ${measured.states.map((row) => `${row.state} ${row.count}`).join(", ")}`);
  });
}

await main();
