// A year of data (issue 36): the same figures on an empty database and on one seeded with a year of
// history (bench/seed-scale.ts), in one run against one Worker (bench/local-worker.ts): ingestion's
// ratio to the raw insert (bench/ingest-work.ts), claims with runs waiting (bench/claim-work.ts),
// every console list through /rpc as the console calls it (GET with the session cookie), the audit
// export, the data export, the partition pass, the analytics rollup, and the deletion of the
// organization, with the Worker's heap (read through its inspector) and the longest database
// transaction seen while each heavy operation ran. Prints a table with the targets beside
// the figures, or with `--json` exactly `{ "empty": F, "seeded": F }` (bench/figures.ts). Asserts nothing.
//   BENCH_SCALE      multiplies every count of the year (default 1; 0.01 for a smoke run)
//   BENCH_ROUNDS     ingestion rounds per mix (default 3), BENCH_BATCHES batches per round (default 20)
//   BENCH_RUNS       claims: runs requested during the measure (default 200, at 20 a second)
//   BENCH_SAMPLES    requests per console list (default 40)
import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import { withNodeDb } from "../db/node-pool";
import { type Db, inTenant } from "../db/transaction";
import { freePort } from "../local/free-port";
import { requestDeletion } from "../worker/deletion/request";
import { encodeCursor } from "../worker/http/paging";
import { LOCAL_CRON_PATH } from "../worker/cron-names";
import { beginSession } from "../worker/sessions/store";
import { claimLatency } from "./claim-work";
import { type Counts, type Figures, figures, type Measured, parseScaleArgs, percentile, scaledCounts, scaleDocument } from "./figures";
import { ingestRounds, ingestSenders, type Mix } from "./ingest-work";
import { type BenchWorker, withBenchWorker, workerdPids } from "./local-worker";
import { inspect } from "./profile";
import { type Seeded, seedYear } from "./seed-scale";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 20);
const CLAIM_RUNS = Number(process.env.BENCH_RUNS ?? 200);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 40);
/** The mixes of issue 19's target; `ingestRatio` is the worse of the two. */
const INGEST_MIXES: Mix[] = ["stored only", "10% environment.*"];
/**
 * A transaction longer than this is flagged: the default CPU limit of one Worker invocation (a
 * request or a Cron Trigger), and far more than any lock or pooled connection should be held.
 */
const TRANSACTION_LIMIT_MS = 30_000;
const MB = 1024 * 1024;
/** Sweeps driven at most while the deletion is under way (each gives its Delete step 20 s). */
const MAX_SWEEPS = 500;
/** The local cron route's secret for this run (the Worker answers /local/cron only with it). */
const CRON_SECRET = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");

const args = parseScaleArgs(process.argv.slice(2), process.env);
// Progress goes to stderr, so that `--json` prints nothing but the document on stdout.
const say = (line: string) => process.stderr.write(`${line}\n`);

/** The Worker's heap (inspector), workerd's resident memory (/proc) and the longest open transaction (pg_stat_activity), sampled every 100 ms. */
interface Watched<T> {
  result: T;
  seconds: number;
  heapPeakMb: number;
  heapBaseMb: number;
  rssPeakMb: number;
  rssBaseMb: number;
  longestTransactionMs: number;
}

const rssMb = (pids: number[]) =>
  pids.reduce((total, pid) => {
    try {
      return total + Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
    } catch {
      return total;
    }
  }, 0);

/** `database`: a connection of the superuser's, which sees every session in pg_stat_activity. */
function watcher(inspectorPort: number, database: Db) {
  return {
    async watch<T>(work: () => Promise<T>, onTick: (database: Db) => Promise<void> = async () => {}, everyMs = 100): Promise<Watched<T>> {
      // A DevTools session only while an operation is watched, so the rest of the run is measured without one.
      const session = await inspect(inspectorPort);
      // The inspector answers only when the isolate gets to it: a command not answered in time reads as no sample.
      const command = (method: string) =>
        Promise.race([session.command(method), new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 1000).unref())]);
      const heapMb = async () => ((await command("Runtime.getHeapUsage")) as { usedSize?: number } | undefined)?.usedSize ?? Number.NaN;
      const pids = workerdPids();
      await command("HeapProfiler.collectGarbage");
      const heapBase = (await heapMb()) / MB;
      const rssBase = rssMb(pids);
      let heapPeak = heapBase;
      let rssPeak = rssBase;
      let longest = 0;
      let busy = false;
      const tick = async () => {
        if (busy) return;
        busy = true;
        try {
          const heap = (await heapMb()) / MB;
          if (Number.isFinite(heap)) heapPeak = Number.isFinite(heapPeak) ? Math.max(heapPeak, heap) : heap;
          rssPeak = Math.max(rssPeak, rssMb(pids));
          const { rows } = await database.execute<{ ms: number }>(
            sql`SELECT coalesce(max(extract(epoch FROM clock_timestamp() - xact_start) * 1000), 0)::float8 AS ms FROM pg_stat_activity
             WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND xact_start IS NOT NULL`,
          );
          longest = Math.max(longest, rows[0]!.ms);
          await onTick(database);
        } finally {
          busy = false;
        }
      };
      const timer = setInterval(() => void tick().catch(() => {}), everyMs);
      const started = performance.now();
      try {
        const result = await work();
        const seconds = (performance.now() - started) / 1000;
        await tick().catch(() => {});
        return { result, seconds, heapPeakMb: heapPeak, heapBaseMb: heapBase, rssPeakMb: rssPeak, rssBaseMb: rssBase, longestTransactionMs: longest };
      } finally {
        clearInterval(timer);
        session.close();
      }
    },
  };
}

/** The console's calls with a session cookie: GET /rpc/<name>?input= for queries, POST with the CSRF header for mutations. */
function consoleOf(base: string, sessionToken: string) {
  const cookie = `svc_session=${sessionToken}`;
  const answer = async (response: Response) => {
    const text = await response.text();
    const body = text ? (JSON.parse(text) as { result?: { data?: unknown } }) : {};
    return { status: response.status, data: body.result?.data, text };
  };
  let csrf: string | null = null;
  return {
    /** A query procedure. */
    ask: async (name: string, input: unknown) =>
      answer(await fetch(`${base}/rpc/${name}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: { cookie } })),
    mutation: async (name: string, input: unknown) => {
      csrf ??= ((await (await fetch(`${base}/auth/session`, { headers: { cookie } })).json()) as { csrfToken: string }).csrfToken;
      return answer(
        await fetch(`${base}/rpc/${name}`, {
          method: "POST",
          headers: { cookie, "x-svc-csrf": csrf, "content-type": "application/json" },
          body: JSON.stringify(input),
        }),
      );
    },
    get: (path: string) => fetch(base + path, { headers: { cookie } }),
  };
}

type Console = ReturnType<typeof consoleOf>;

/** Which of `cursor` and `before` a procedure's input takes, read from /openapi.json (another change may move a list to keyset cursors). */
async function pagingInputs(base: string): Promise<(name: string) => { cursor: boolean; before: boolean }> {
  const document = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, unknown> };
  return (name) => {
    const operation = JSON.stringify(document.paths[`/rpc/${name}`] ?? {});
    return { cursor: operation.includes('"cursor"'), before: operation.includes('"before"') };
  };
}

interface ListCall {
  /** The procedure, or `<procedure>:<which page>`. */
  label: string;
  procedure: string;
  input: Record<string, unknown>;
  /** Follow the answers' `nextCursor` (a keyset-paged list); false: always this page. */
  follow: boolean;
}

function listCalls(seeded: Seeded, auditEntries: number, paging: (name: string) => { cursor: boolean; before: boolean }): ListCall[] {
  const orgId = seeded.orgId;
  const envId = seeded.busyEnvId;
  const first = (procedure: string, input: Record<string, unknown> = {}): ListCall => ({
    label: procedure,
    procedure,
    input: { orgId, ...input },
    follow: paging(procedure).cursor,
  });
  // The last page of the audit log: a million entries deep at scale 1, by whichever paging input the procedure takes.
  const deep = Math.max(2, Math.min(51, auditEntries));
  const auditPaging = paging("audit.list");
  return [
    first("environments.list"),
    first("runs.list", { envId }),
    { ...first("runs.get", { runId: seeded.runId }), label: "runs.get:verdicts" },
    first("decisions.list", { envId }),
    first("workloads.runs"),
    first("members.list"),
    first("tokens.list"),
    first("audit.list"),
    {
      label: "audit.list:deep",
      procedure: "audit.list",
      // A cursor is the last row's key (worker/http/paging.ts): the page after entry `deep`, newest first, is the log's oldest.
      input: { orgId, ...(auditPaging.before ? { before: deep } : auditPaging.cursor ? { cursor: encodeCursor([deep]) } : {}) },
      follow: false,
    },
    first("exports.list"),
    first("billing.history"),
    first("invitations.list"),
    first("masking.proposals"),
    first("network.proposals"),
    first("pullRequests.commits"),
  ];
}

/** p50/p95 material: `SAMPLES` requests per list; a keyset-paged list walks its pages (from the first again when they end). */
async function measureLists(console_: Console, calls: ListCall[]): Promise<{ ms: Record<string, number[]>; notes: string[] }> {
  const ms: Record<string, number[]> = {};
  const notes: string[] = [];
  for (const call of calls) {
    let cursor: unknown = null;
    let pages = 0;
    let size = 0;
    const times: number[] = [];
    await console_.ask(call.procedure, call.input); // warm: the router and the isolate's first use of the procedure
    for (let i = 0; i < SAMPLES; i++) {
      const input = cursor === null ? call.input : { ...call.input, cursor };
      const started = performance.now();
      const { status, data, text } = await console_.ask(call.procedure, input);
      times.push(performance.now() - started);
      if (status !== 200) {
        // Not a page of the list (the empty database has no such run, say): no figure.
        notes.push(`${call.label}: ${status} ${text.slice(0, 160)}`);
        times.length = 0;
        break;
      }
      size = Math.max(size, text.length);
      const next = call.follow ? ((data as { nextCursor?: unknown } | undefined)?.nextCursor ?? null) : null;
      pages += next === null ? 0 : 1;
      cursor = next;
    }
    ms[call.label] = times;
    if (call.follow) notes.push(`${call.label}: keyset-paged (followed nextCursor ${pages} times)`);
    notes.push(`${call.label}: largest answer ${(size / 1024).toFixed(0)} KiB`);
  }
  return { ms, notes };
}

/** One column: everything measured against the organization `seeded` names, its deletion last. */
interface Column {
  measured: Measured;
  ingest: Record<string, number>;
  claimP50Ms: number;
  claimCount: number;
  claimCheck: string;
  verify: { seconds: number; intact: boolean | null; entries: number };
  auditExport: Watched<number>;
  dataExport: Watched<{ status: number; sizeBytes: number }>;
  partitionMs: number;
  rollupMs: number;
  /** `sweeps`: the sweeps it took (the Delete step goes on over as many as its batches need). */
  deletion: Watched<string> & { steps: Array<{ step: string; ms: number }>; sweeps: number };
  listNotes: string[];
}

async function measureColumn(
  worker: BenchWorker,
  watch: ReturnType<typeof watcher>,
  name: string,
  seeded: Seeded,
  counts: Counts,
  backlog: number,
): Promise<Column> {
  const { pool, base } = worker;
  say(`${name}: ingestion`);
  const senders = await ingestSenders(worker, `-${name}`);
  const ingest: Record<string, number> = {};
  for (const mix of INGEST_MIXES) {
    const { service, direct } = await ingestRounds(senders, mix, 4, ROUNDS, BATCHES);
    ingest[mix] = service / direct;
  }
  say(`${name}: claims (${backlog} runs waiting)`);
  // One claim at a time (bench/claim-work.ts, `inTurn`): polling engines claim back to back from a
  // backlog, which measures the machine's load as much as the data (bench:backlog).
  const claims = await claimLatency(worker, { runs: CLAIM_RUNS, ratePerSecond: 20, pollMs: 20, backlog, inTurn: true, slug: `bench-claim-${name}` });
  const claimMs = [...claims.claimRunMs, ...claims.claimEmptyMs];

  const session = await beginSession(pool.connect, { id: seeded.ownerId, label: "bench" }, { address: null, userAgent: "bench" }, "bench");
  const console_ = consoleOf(base, session);
  say(`${name}: console lists`);
  const lists = await measureLists(console_, listCalls(seeded, counts.auditEntries, await pagingInputs(base)));

  say(`${name}: audit.verify`);
  const verifyStarted = performance.now();
  const verified = await console_.ask("audit.verify", { orgId: seeded.orgId });
  const verdict = verified.data as { intact?: boolean; entries?: number } | undefined;
  const verify = { seconds: (performance.now() - verifyStarted) / 1000, intact: verdict?.intact ?? null, entries: verdict?.entries ?? 0 };

  say(`${name}: audit export`);
  const auditExport = await watch.watch(async () => {
    const response = await console_.get(`/console/api/audit/export?orgId=${seeded.orgId}`);
    if (response.status !== 200) throw new Error(`the audit export answered ${response.status}: ${await response.text()}`);
    let lines = 0;
    for await (const chunk of response.body!) for (const byte of chunk as Uint8Array) if (byte === 10) lines++;
    return lines;
  });
  say(`${name}: data export`);
  const dataExport = await watch.watch(async () => {
    const created = await console_.mutation("exports.create", { orgId: seeded.orgId });
    if (created.status !== 200) say(`  exports.create answered ${created.status}: ${created.text.slice(0, 300)}`);
    return { status: created.status, sizeBytes: (created.data as { sizeBytes?: number } | undefined)?.sizeBytes ?? 0 };
  });

  const cron = async (job: string) => {
    const response = await fetch(`${base}${LOCAL_CRON_PATH}?job=${job}`, { method: "POST", headers: { authorization: `Bearer ${CRON_SECRET}` } });
    const body = (await response.json()) as { outcome?: string; durationMs?: number; report?: unknown };
    if (body.outcome !== "ok") say(`  ${job}: ${JSON.stringify(body)}`);
    return body;
  };
  say(`${name}: partition pass, analytics rollup`);
  const partitionMs = (await cron("partitions")).durationMs ?? Number.NaN;
  const rollupMs = (await cron("analytics-rollup")).durationMs ?? Number.NaN;

  say(`${name}: deletion`);
  await inTenant(pool.connect, seeded.orgId, (tx) => requestDeletion(tx, seeded.orgId, { personId: seeded.ownerId, label: "bench" }));
  say(`${name}: deletion requested`);
  // Each step's row appears when its transaction commits (seen every 20 ms); the last step removes them with the organization.
  // Sweeps one after another, as long as the Delete step answers that it is under way (each sweep gives it 20 s).
  const done = new Map<string, number>();
  let sweepStarted = 0;
  let sweeps = 0;
  const deletion = await watch.watch(
    async () => {
      sweepStarted = performance.now();
      let outcome = "in_progress";
      while (outcome === "in_progress" && sweeps < MAX_SWEEPS) {
        sweeps++;
        const swept = (await cron("sweep")) as { report?: { deletions?: Record<string, string> } };
        outcome = swept.report?.deletions?.[seeded.orgId] ?? "not run";
      }
      return outcome;
    },
    async (database) => {
      const { rows } = await database.execute<{ step: string }>(sql`SELECT step FROM deletion_steps WHERE org_id = ${seeded.orgId}`);
      for (const { step } of rows) if (!done.has(step)) done.set(step, performance.now() - sweepStarted);
    },
    20,
  );
  const marks = [...done].sort((a, b) => a[1] - b[1]);
  marks.push(["delete", deletion.seconds * 1000]);
  const steps = marks.map(([step, at], i) => ({ step, ms: Math.max(0, at - (i === 0 ? 0 : marks[i - 1]![1])) }));

  const heavy = (watched: Watched<unknown>, longestStepMs: number) => ({
    seconds: watched.seconds,
    peakMemoryMb: watched.heapPeakMb - watched.heapBaseMb,
    longestStepMs,
  });
  return {
    measured: {
      ingestRatios: Object.values(ingest),
      claimMs,
      lists: lists.ms,
      auditExport: { entries: auditExport.result, seconds: auditExport.seconds, peakMemoryMb: auditExport.heapPeakMb - auditExport.heapBaseMb },
      dataExport: heavy(dataExport, dataExport.longestTransactionMs),
      deletion: heavy(deletion, Math.max(...steps.map((s) => s.ms))),
    },
    ingest,
    claimP50Ms: percentile(claimMs, 50),
    claimCount: claimMs.length,
    claimCheck: `requested ${claims.requested}, claimed ${claims.claimed}, twice ${claims.claimedTwice}, lost ${claims.lost}, failed calls ${claims.failures.length}`,
    verify,
    auditExport,
    dataExport,
    partitionMs,
    rollupMs,
    deletion: { ...deletion, steps, sweeps },
    listNotes: lists.notes,
  };
}

const EMPTY: Counts = Object.fromEntries(Object.keys(scaledCounts(1)).map((key) => [key, key === "months" ? 12 : 0])) as Counts;

function table(counts: Counts, empty: Column, seeded: Column, e: Figures, s: Figures): string {
  const lines: string[] = [];
  const row = (what: string, a: string, b: string, target = "") => lines.push(`${what.padEnd(34)} ${a.padStart(12)} ${b.padStart(12)}   ${target}`);
  const n = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "-");
  row("", "empty", "seeded", "target");
  for (const mix of INGEST_MIXES) row(`ingest ratio, ${mix} (c=4)`, n(empty.ingest[mix]!, 2), n(seeded.ingest[mix]!, 2), "seeded within 10% of empty");
  row("claim p50 / p99 ms", `${n(empty.claimP50Ms)} / ${n(e.claimP99Ms)}`, `${n(seeded.claimP50Ms)} / ${n(s.claimP99Ms)}`, "seeded within 10% of empty");
  row("  claims measured", String(empty.claimCount), String(seeded.claimCount), `both: ${counts.claimBacklog} runs waiting first`);
  lines.push("console lists, p50 / p95 ms");
  for (const name of Object.keys(s.lists)) {
    const cell = (f: Figures) => (f.lists[name] ? `${n(f.lists[name]!.p50Ms)} / ${n(f.lists[name]!.p95Ms)}` : "-");
    row(`  ${name}`, cell(e), cell(s), "p95 < 100 ms");
  }
  row(
    "audit.verify s (entries, intact)",
    `${n(empty.verify.seconds, 2)}`,
    `${n(seeded.verify.seconds, 2)}`,
    `${seeded.verify.entries} entries, intact: ${seeded.verify.intact}`,
  );
  row("audit export entries/s", String(e.auditExport.entriesPerSecond), String(s.auditExport.entriesPerSecond), ">= 50,000 a second");
  row("  entries, s", `${empty.auditExport.result}, ${n(empty.auditExport.seconds, 2)}`, `${seeded.auditExport.result}, ${n(seeded.auditExport.seconds, 2)}`);
  row("  Worker heap growth MB", n(e.auditExport.peakMemoryMb), n(s.auditExport.peakMemoryMb), "< 128 MB");
  row("  workerd RSS peak MB (growth)", rss(empty.auditExport), rss(seeded.auditExport));
  row("data export s", n(e.dataExport.seconds, 2), n(s.dataExport.seconds, 2), "within a request's limits");
  row(
    "  answer, size MB",
    `${empty.dataExport.result.status}, ${n(empty.dataExport.result.sizeBytes / MB, 2)}`,
    `${seeded.dataExport.result.status}, ${n(seeded.dataExport.result.sizeBytes / MB, 2)}`,
  );
  row("  Worker heap growth MB", n(e.dataExport.peakMemoryMb), n(s.dataExport.peakMemoryMb), "< 128 MB");
  row("  workerd RSS peak MB (growth)", rss(empty.dataExport), rss(seeded.dataExport));
  row("  longest transaction ms", n(e.dataExport.longestStepMs, 0), n(s.dataExport.longestStepMs, 0), `< ${TRANSACTION_LIMIT_MS} ms`);
  row(
    "deletion s (outcome)",
    `${n(e.deletion.seconds, 2)} ${empty.deletion.result}`,
    `${n(s.deletion.seconds, 2)} ${seeded.deletion.result}`,
    "completes within the limits",
  );
  row("  steps", String(empty.deletion.steps.length), String(seeded.deletion.steps.length));
  row("  sweeps", String(empty.deletion.sweeps), String(seeded.deletion.sweeps), "the Delete step's batches resume in the next");
  row("  longest step ms", n(e.deletion.longestStepMs, 0), n(s.deletion.longestStepMs, 0));
  row(
    "  longest transaction ms",
    n(empty.deletion.longestTransactionMs, 0),
    n(seeded.deletion.longestTransactionMs, 0),
    `< ${TRANSACTION_LIMIT_MS} ms (a batch: well under 1,000)`,
  );
  row("  Worker heap growth MB", n(e.deletion.peakMemoryMb), n(s.deletion.peakMemoryMb), "< 128 MB");
  row("partition pass ms", n(empty.partitionMs, 0), n(seeded.partitionMs, 0), `${counts.months} monthly partitions`);
  row("analytics rollup ms", n(empty.rollupMs, 0), n(seeded.rollupMs, 0), `a day of ${counts.beaconEvents} beacon events`);
  lines.push("", "deletion steps (seeded): " + seeded.deletion.steps.map((step) => `${step.step} ${n(step.ms, 0)} ms`).join(", "));
  lines.push(`claims: empty ${empty.claimCheck}; seeded ${seeded.claimCheck}`);
  lines.push(...seeded.listNotes.map((note) => `seeded ${note}`));
  return lines.join("\n");
}

const rss = (watched: Watched<unknown>) => `${watched.rssPeakMb.toFixed(0)} (${(watched.rssPeakMb - watched.rssBaseMb).toFixed(0)})`;

async function main() {
  const counts = scaledCounts(args.scale);
  const inspectorPort = await freePort();
  const variables = {
    SVC_LOCAL_CRON_SECRET: CRON_SECRET,
    SVC_ANALYTICS_SURROGATE_SECRET: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex"),
    SVC_EVENT_RETENTION_MONTHS: String(counts.months),
  };
  await withBenchWorker(
    variables,
    async (worker) => {
      await withNodeDb(worker.stack.superuserUrl, null, async (database) => {
        const watch = watcher(inspectorPort, database);
        say(`bench:scale at BENCH_SCALE=${args.scale}: ${JSON.stringify(counts)}`);
        const empty = await seedYear(worker.stack, worker.pool, "bench-empty", EMPTY, 1_000_000_000);
        // Both columns claim with the same backlog: with runs waiting the engines claim back to back instead of
        // polling an empty queue, so only the same backlog on both sides leaves the data as the difference.
        const emptyColumn = await measureColumn(worker, watch, "empty", empty, EMPTY, counts.claimBacklog);
        say("seeding a year of data");
        const large = await seedYear(worker.stack, worker.pool, "bench-large", counts, 2_000_000_000, say);
        say(`seeded in ${large.seconds.toFixed(1)} s`);
        const seededColumn = await measureColumn(worker, watch, "seeded", large, counts, counts.claimBacklog);
        const e = figures(emptyColumn.measured);
        const s = figures(seededColumn.measured);
        if (args.json) console.log(scaleDocument(e, s));
        else {
          console.log(`bench:scale at BENCH_SCALE=${args.scale}, seeded in ${large.seconds.toFixed(0)} s: ${JSON.stringify(large.rows)}`);
          console.log(table(counts, emptyColumn, seededColumn, e, s));
        }
      });
    },
    inspectorPort,
  );
}

await main();
