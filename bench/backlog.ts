// What a backlog costs a claim (issue 47): the same 8 engines (bench/claim-work.ts) claim from an empty
// queue, where runs arrive at 20 a second, and from a queue holding 10,000 waiting runs, once at the
// same 20 claims a second (paced) and once back to back as fast as they can (saturated: the figure
// bench:scale took before, which measures the machine's load as much as the queue). Rounds alternate,
// each in an organization of its own; workload_runs' live and dead row versions are printed after each
// (a claim leaves a dead version behind until autovacuum). Prints figures; asserts nothing.
//   BENCH_ROUNDS   rounds (default 3)
//   BENCH_BACKLOG  runs waiting (default 10,000)
//   --json         { "rounds": [{ "empty", "backlog", "saturated" }], "ratio": { "p50", "p99" } } on stdout
import { sql } from "drizzle-orm";
import { withNodeDb } from "../db/node-pool";
import { claimLatency, type ClaimFigures } from "./claim-work";
import { percentile } from "./figures";
import { withBenchWorker } from "./local-worker";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 10_000);
const JSON_OUT = process.argv.includes("--json");
const say = (line: string) => (JSON_OUT ? console.error(line) : console.log(line));

interface Figure {
  p50Ms: number;
  p99Ms: number;
  claims: number;
  perSecond: number;
}

const figure = ({ claimRunMs, seconds }: ClaimFigures): Figure => ({
  p50Ms: Number(percentile(claimRunMs, 50).toFixed(1)),
  p99Ms: Number(percentile(claimRunMs, 99).toFixed(1)),
  claims: claimRunMs.length,
  perSecond: Math.round(claimRunMs.length / seconds),
});
const line = (name: string, f: Figure) =>
  `${name.padEnd(30)} p50 ${f.p50Ms.toFixed(1).padStart(6)} ms  p99 ${f.p99Ms.toFixed(1).padStart(6)} ms  ${String(f.perSecond).padStart(4)} claims/s`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

await withBenchWorker({}, (worker) =>
  withNodeDb(worker.stack.superuserUrl, async (superuser) => {
    const versions = async () => {
      const { rows } = await superuser.execute<{ n_live_tup: string; n_dead_tup: string; autovacuum_count: string }>(
        sql`SELECT n_live_tup, n_dead_tup, autovacuum_count FROM pg_stat_user_tables WHERE relname = 'workload_runs'`,
      );
      const row = rows[0]!;
      return `workload_runs: ${row.n_live_tup} live, ${row.n_dead_tup} dead row versions, autovacuumed ${row.autovacuum_count} times`;
    };
    const measure = (round: number, backlog: number, paced: boolean) =>
      claimLatency(worker, { runs: 200, ratePerSecond: 20, pollMs: 20, backlog, paced, slug: `backlog-${round}-${backlog}-${paced}` }).then(figure);
    const rounds: Array<{ empty: Figure; backlog: Figure; saturated: Figure }> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const empty = await measure(round, 0, false);
      say(line(`round ${round + 1} empty queue`, empty));
      const backlog = await measure(round, BACKLOG, true);
      say(line(`round ${round + 1} ${BACKLOG} waiting, paced`, backlog));
      const saturated = await measure(round, BACKLOG, false);
      say(line(`round ${round + 1} ${BACKLOG} waiting, saturated`, saturated));
      say(`  ${await versions()}`);
      rounds.push({ empty, backlog, saturated });
    }
    const ratio = {
      p50: Number(median(rounds.map((r) => r.backlog.p50Ms / r.empty.p50Ms)).toFixed(2)),
      p99: Number(median(rounds.map((r) => r.backlog.p99Ms / r.empty.p99Ms)).toFixed(2)),
    };
    say(`paced backlog / empty queue, median of ${ROUNDS} rounds: p50 ${ratio.p50}x, p99 ${ratio.p99}x`);
    if (JSON_OUT) console.log(JSON.stringify({ rounds, ratio }));
  }),
);
