// What a backlog costs a claim (issue 47): runs are requested at 20 a second and, after each, one of
// the same 8 engines (bench/claim-work.ts) claims once, in turn, from an empty queue and from a queue
// holding 10,000 waiting runs (once as made, once after ANALYZE): the same cadence and load, the queue
// alone differing. Beside them, for
// the figures bench:claim and bench:scale take, the engines polling the empty queue, and claiming back
// to back from the backlog (saturated: polling engines pause only after an empty poll). Rounds
// alternate, each in an organization of its own; workload_runs' live and dead row versions are printed
// after each (a claim leaves a dead version behind until autovacuum). Prints figures; asserts nothing.
//   BENCH_ROUNDS   rounds (default 3)
//   BENCH_BACKLOG  runs waiting (default 10,000)
//   --json         { "rounds": [{ "polling", "empty", "backlog", "analyzed", "saturated" }], "ratio": { "p50", "p99" },
//                  "analyzedRatio": { same } } on stdout
import { sql } from "drizzle-orm";
import { withNodeDb } from "../db/node-pool";
import { claimLatency } from "./claim-work";
import { type ClaimFigures, percentile } from "./figures";
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
  `${name.padEnd(40)} p50 ${f.p50Ms.toFixed(1).padStart(6)} ms  p99 ${f.p99Ms.toFixed(1).padStart(6)} ms  ${String(f.perSecond).padStart(4)} claims/s`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

await withBenchWorker({}, (worker) =>
  withNodeDb(worker.stack.superuserUrl, null, async (superuser) => {
    const versions = async () => {
      const { rows } = await superuser.execute<{ n_live_tup: string; n_dead_tup: string; autovacuum_count: string }>(
        sql`SELECT n_live_tup, n_dead_tup, autovacuum_count FROM pg_stat_user_tables WHERE relname = 'workload_runs'`,
      );
      const row = rows[0]!;
      return `workload_runs: ${row.n_live_tup} live, ${row.n_dead_tup} dead row versions, autovacuumed ${row.autovacuum_count} times`;
    };
    const measure = (round: number, what: string, backlog: number, inTurn: boolean, analyzed = false) =>
      claimLatency(worker, { runs: 200, ratePerSecond: 20, pollMs: 20, backlog, inTurn, analyzed, slug: `backlog-${round}-${backlog}-${inTurn}-${analyzed}` })
        .then(figure)
        .then((measured) => {
          say(line(`round ${round + 1} ${what}`, measured));
          return measured;
        });
    const rounds: Array<{ polling: Figure; empty: Figure; backlog: Figure; analyzed: Figure; saturated: Figure }> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const polling = await measure(round, "empty queue, polling", 0, false);
      const empty = await measure(round, "empty queue, in turn", 0, true);
      const backlog = await measure(round, `${BACKLOG} waiting, in turn`, BACKLOG, true);
      const analyzed = await measure(round, `${BACKLOG} waiting, in turn, analyzed`, BACKLOG, true, true);
      const saturated = await measure(round, `${BACKLOG} waiting, polling`, BACKLOG, false);
      say(`  ${await versions()}`);
      rounds.push({ polling, empty, backlog, analyzed, saturated });
    }
    const ratioOf = (side: "backlog" | "analyzed") => ({
      p50: Number(median(rounds.map((r) => r[side].p50Ms / r.empty.p50Ms)).toFixed(2)),
      p99: Number(median(rounds.map((r) => r[side].p99Ms / r.empty.p99Ms)).toFixed(2)),
    });
    const ratio = ratioOf("backlog");
    const analyzedRatio = ratioOf("analyzed");
    say(`in turn, backlog / empty queue, median of ${ROUNDS} rounds: p50 ${ratio.p50}x, p99 ${ratio.p99}x`);
    say(`  the backlog analyzed first: p50 ${analyzedRatio.p50}x, p99 ${analyzedRatio.p99}x`);
    if (JSON_OUT) console.log(JSON.stringify({ rounds, ratio, analyzedRatio }));
  }),
);
