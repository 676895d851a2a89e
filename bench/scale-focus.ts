// Issue 36's two open figures taken apart, in one sitting against one Worker (bench/local-worker.ts):
// claims (bench/claim-work.ts) with no run waiting and with `BENCH_SCALE` × 10,000 runs waiting, on
// the empty database and again once it holds a year of data (bench/seed-scale.ts), so that what the
// data costs and what the backlog costs are seen apart; then the audit export of the seeded
// organization, read to its end several times. Each line gives the load average it was taken at.
//   BENCH_SCALE    as bench:scale (default 0.1)
//   BENCH_REPEAT   rounds of each figure (default 3)
//   BENCH_ONLY     "claims" or "export": only that half ("export" seeds nothing but the audit log)
//   BENCH_INSPECTOR_PORT  a free port: the export's last round is profiled (bench/profile.ts), printed after it
//   BENCH_HOLD     1: keep the stack up at the end (prints the superuser's URL) until SIGUSR2
import { loadavg } from "node:os";
import { claimLatency } from "./claim-work";
import { type Counts, percentile, scaledCounts } from "./figures";
import { readFileSync } from "node:fs";
import { type BenchWorker, withBenchWorker, workerdPids } from "./local-worker";
import { profiled } from "./profile";
import { seedYear } from "./seed-scale";
import { beginSession } from "../worker/sessions/store";

const SCALE = Number(process.env.BENCH_SCALE ?? 0.1);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const ONLY = process.env.BENCH_ONLY ?? "";
const say = (line: string) => console.log(line);
const load = () =>
  `load ${loadavg()
    .map((value) => value.toFixed(2))
    .join(" ")}`;
/** CPU seconds the Worker's workerd processes have used (user and system, from /proc; 100 ticks a second). */
const workerdCpu = (pids: number[]) =>
  pids.reduce((total, pid) => {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return total + (Number(fields[11]) + Number(fields[12])) / 100;
  }, 0);
const ms = (values: number[], p: number) => (values.length === 0 ? "-" : percentile(values, p).toFixed(1));

async function claims(worker: BenchWorker, label: string, backlog: number) {
  const pids = workerdPids();
  for (let round = 0; round < REPEAT; round++) {
    const cpu = workerdCpu(pids);
    const measured = await claimLatency(worker, { runs: 200, ratePerSecond: 20, pollMs: 20, backlog, slug: `focus-${label}-${backlog}-${round}` });
    const all = [...measured.claimRunMs, ...measured.claimEmptyMs];
    say(
      `claims ${label.padEnd(6)} backlog ${String(backlog).padStart(5)}: all p50/p99 ${ms(all, 50)}/${ms(all, 99)} (${all.length}); ` +
        `with a run ${ms(measured.claimRunMs, 50)}/${ms(measured.claimRunMs, 99)} (${measured.claimRunMs.length}); ` +
        `empty ${ms(measured.claimEmptyMs, 50)}/${ms(measured.claimEmptyMs, 99)}; ${measured.seconds.toFixed(1)} s; ` +
        `workerd CPU ${(((workerdCpu(pids) - cpu) * 1000) / all.length).toFixed(1)} ms a claim; twice ${measured.claimedTwice}, lost ${measured.lost}; ${load()}`,
    );
  }
}

async function auditExport(worker: BenchWorker, orgId: string, ownerId: string) {
  const session = await beginSession(worker.pool.connect, { id: ownerId, label: "bench" }, { address: null, userAgent: "bench" }, "bench");
  const pids = workerdPids();
  const read = async (label: string) => {
    const cpu = workerdCpu(pids);
    const started = performance.now();
    const response = await fetch(`${worker.base}/console/api/audit/export?orgId=${orgId}`, { headers: { cookie: `svc_session=${session}` } });
    if (response.status !== 200) throw new Error(`the audit export answered ${response.status}`);
    let lines = 0;
    for await (const chunk of response.body!) for (const byte of chunk as Uint8Array) if (byte === 10) lines++;
    const seconds = (performance.now() - started) / 1000;
    const cpuSeconds = workerdCpu(pids) - cpu;
    say(
      `export${label}: ${lines} lines in ${seconds.toFixed(2)} s, ${Math.round(lines / seconds)} entries/s; workerd CPU ${cpuSeconds.toFixed(2)} s (${Math.round(lines / cpuSeconds)} entries per CPU second); ${load()}`,
    );
  };
  // The first round warms the isolate's path; it is printed, not counted.
  for (let round = 0; round < REPEAT + 1; round++) await read(round === 0 ? " (warm)" : "");
  const inspectorPort = process.env.BENCH_INSPECTOR_PORT;
  if (inspectorPort) say(await profiled(Number(inspectorPort), worker.sourceMap, () => read(" (profiled)")));
}

async function main() {
  const counts = scaledCounts(SCALE);
  const none = Object.fromEntries(Object.keys(counts).map((key) => [key, key === "months" ? 12 : 0])) as Counts;
  await withBenchWorker({}, async (worker) => {
    if (ONLY !== "export") {
      await claims(worker, "empty", 0);
      await claims(worker, "empty", counts.claimBacklog);
    }
    const seedCounts = ONLY === "export" ? { ...none, auditEntries: counts.auditEntries } : counts;
    const seeded = await seedYear(worker.stack, worker.pool, "focus-large", seedCounts, 2_000_000_000);
    say(`seeded in ${seeded.seconds.toFixed(1)} s; ${load()}`);
    if (ONLY !== "export") {
      await claims(worker, "seeded", 0);
      await claims(worker, "seeded", counts.claimBacklog);
    }
    if (ONLY !== "claims") await auditExport(worker, seeded.orgId, seeded.ownerId);
    if (process.env.BENCH_HOLD === "1") {
      say(`holding: psql ${worker.stack.superuserUrl} (kill -USR2 ${process.pid} to end)`);
      await new Promise((resolve) => process.once("SIGUSR2", resolve));
    }
  });
}

await main();
