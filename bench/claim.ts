// Claim latency under contention, beside its floor: 8 engines (8 engine tokens of one organization)
// poll one environment's POST /v1/workloads/claim on the local stack (the Worker's deploy bundle in
// workerd, its Durable Object, neon driver, bridge, PostgreSQL) while runs are requested at a steady
// rate; each engine heartbeats what it claims once (bench/claim-work.ts). Then the same engines,
// runs and rate claim straight from PostgreSQL with the minimal queue statement, from this process
// (claimFloor): the floor. Prints p50/p99 of claims (those that got a run and empty polls apart) and
// heartbeats for both, their ratios (targets: the service within 3x the floor), and checks every
// requested run was claimed exactly once and none was lost. `--json` prints one document instead.
// The two sides take turns, BENCH_ROUNDS rounds each (which goes first alternating), so that a drift
// of the machine weighs on both alike; each figure is taken over every round's timings together.
// Prints figures; asserts nothing else.
//   BENCH_ROUNDS rounds of each side (default 3)
//   BENCH_RUNS   runs requested in each round (default 200)
//   BENCH_RATE   runs requested per second (default 20)
//   BENCH_POLL_MS  an engine's pause after an empty poll (default 20)
import { ENGINES, claimFloor, claimLatency } from "./claim-work";
import { type ClaimFigures, claimDocument, claimRatio, claimSummary, percentile, pooledClaims } from "./figures";
import { withBenchWorker } from "./local-worker";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 20);
const JSON_OUTPUT = process.argv.includes("--json");

async function main() {
  await withBenchWorker({}, async (worker) => {
    const serviceRounds: ClaimFigures[] = [];
    const floorRounds: ClaimFigures[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const options = { runs: RUNS, ratePerSecond: RATE, pollMs: POLL_MS, backlog: 0, slug: `bench-claim-${round}` };
      const sides = [async () => serviceRounds.push(await claimLatency(worker, options)), async () => floorRounds.push(await claimFloor(worker, options))];
      for (const side of round % 2 === 0 ? sides : sides.reverse()) await side();
    }
    const document = claimDocument(serviceRounds, floorRounds);
    if (JSON_OUTPUT) {
      console.log(JSON.stringify(document));
      return;
    }
    const [service, floor] = [pooledClaims(serviceRounds), pooledClaims(floorRounds)];
    console.log(
      `claim: ${ENGINES} engines on one environment, ${RUNS} runs requested at ${RATE}/s in each of ${ROUNDS} rounds a side; ` +
        `service ${service.seconds.toFixed(1)} s, floor ${floor.seconds.toFixed(1)} s`,
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
    const said = (r: ReturnType<typeof claimRatio>) =>
      `claims p50 ${r.claimP50}x, p99 ${r.claimP99}x; heartbeats p50 ${r.heartbeatP50}x, p99 ${r.heartbeatP99}x`;
    const times = ({ claim, heartbeat }: ReturnType<typeof claimSummary>) =>
      `claims ${claim.p50Ms} / ${claim.p99Ms} ms, heartbeats ${heartbeat.p50Ms} / ${heartbeat.p99Ms} ms`;
    serviceRounds.forEach((round, i) => {
      const [s, f] = [claimSummary(round), claimSummary(floorRounds[i]!)];
      console.log(`round ${i + 1} (${i % 2 === 0 ? "service" : "floor"} first): service ${times(s)}; floor ${times(f)}; ${said(claimRatio(s, f))}`);
    });
    console.log(`service / floor, every round's timings together: ${said(document.ratio)} (target: within 3x)`);
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
