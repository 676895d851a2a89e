// What every benchmark runs against: embedded PostgreSQL and the bridge in a temporary directory
// (event partitions made), the Worker's deploy bundle (what `wrangler deploy` uploads) served by
// workerd through Miniflare on a free port with wrangler.toml's bindings, the local defaults and
// `variables` (ingestion's rate limit off), and a pool as the application role. Everything is torn
// down when `run` ends, however it ends.
// Not `wrangler dev`: its development proxy (a Node process and a second workerd in front of the
// Worker) costs every request more than some of the work measured, and production has none. For the
// same reason requests reach the Worker on a socket of its own (Miniflare's direct socket), not through
// Miniflare's entry worker, and the Worker is served without its static assets: Miniflare points the
// direct socket of a Worker with assets at its emulation of the platform's asset routing (two workers
// of JavaScript, an RPC proxy and the router, in the same workerd), which every request then passed
// through (bench/README.md). In production the routes measured (all `run_worker_first`) run the
// Worker first, routed by the platform; nothing measured here asks for an asset.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import type { Readable } from "node:stream";
import { join } from "node:path";
import { Log, LogLevel, Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { nodePool, withNodeDb } from "../db/node-pool";
import { localWorkerDefaults, startLocalStack, type LocalStack } from "../local/stack";
import { freePort } from "../local/free-port";
import { runPartitionPass } from "../worker/events/partitions/pass";

export interface BenchWorker {
  stack: LocalStack;
  port: string;
  /** The Worker's origin, `http://127.0.0.1:<port>`. */
  base: string;
  pool: ReturnType<typeof nodePool>;
  /** The bundle's source map (`index.js.map`), which reads the minified bundle's positions. */
  sourceMap: string;
}

/**
 * Builds the upload bundle into `outdir` (index.js and the migration text modules beside it), from the
 * tree at `cwd` with its own wrangler.toml (this checkout by default; the release check builds a previous one).
 */
export function buildWorker(outdir: string, cwd?: string): void {
  execFileSync("npx", ["--no-install", "wrangler", "deploy", "--dry-run", "--outdir", outdir], { cwd, stdio: ["ignore", "pipe", "pipe"] });
}

export async function withBenchWorker<T>(
  variables: Record<string, string>,
  run: (worker: BenchWorker) => Promise<T>,
  // BENCH_INSPECTOR_PORT: attach DevTools (or bench/profile.ts) to the Worker while it is measured.
  inspectorPort = process.env.BENCH_INSPECTOR_PORT ? Number(process.env.BENCH_INSPECTOR_PORT) : undefined,
): Promise<T> {
  const worker = await startBenchWorker(variables, { inspectorPort });
  try {
    return await run(worker);
  } finally {
    await worker.stop();
  }
}

/**
 * The same stack, handed out until `stop` (the fault suite's beforeAll and afterAll). `output` takes
 * the Worker's own output (workerd's and its logs) instead of this process's stderr.
 */
export async function startBenchWorker(
  variables: Record<string, string>,
  options: { inspectorPort?: number; output?: (text: string) => void } = {},
): Promise<BenchWorker & { stop: () => Promise<void>; restart: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-"));
  const outdir = join(dir, "worker");
  let stack: LocalStack | null = null;
  let served: ServedBundle | null = null;
  let pool: ReturnType<typeof nodePool> | null = null;
  const stop = async () => {
    await pool?.end();
    await served?.miniflare.dispose();
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    buildWorker(outdir);
    stack = await startBenchStack(join(dir, "data"));
    pool = nodePool(stack.urls.app, "svc_app");
    // Inside `try`: options Miniflare refuses must not leave PostgreSQL running.
    served = await serveBundle(stack, outdir, { objectsDir: join(dir, "objects"), variables, ...options });
    return { stack, port: served.port, base: served.base, pool, sourceMap: join(outdir, "index.js.map"), stop, restart: served.restart };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A stack of its own with this checkout's migrations, its data in `dataDir`, and this month's event partitions made. */
export async function startBenchStack(dataDir: string): Promise<LocalStack> {
  const stack = await startLocalStack({ dataDir, postgresPort: await freePort(), bridgePort: 0, persistent: false });
  try {
    await withNodeDb(stack.urls.maintenance, "svc_maintenance", (db) => runPartitionPass(db, { now: new Date(), retentionMonths: null, archive: null }));
    return stack;
  } catch (error) {
    await stack.stop();
    throw error;
  }
}

export interface ServeOptions {
  /** Where the Durable Objects keep their storage: on disk, so that a restart keeps it. */
  objectsDir: string;
  /** The wrangler.toml whose bindings the Worker gets: that of the tree the bundle was built from. */
  config?: string;
  variables?: Record<string, string>;
  inspectorPort?: number;
  /** Takes the Worker's own output (workerd's and its logs) instead of this process's stderr. */
  output?: (text: string) => void;
}

export interface ServedBundle {
  miniflare: Miniflare;
  /** The port the Worker believes it answers on (SVC_PORT, its base URL). */
  port: string;
  /** The direct socket's origin, where requests reach the Worker without Miniflare's entry worker. */
  base: string;
  /**
   * A new workerd with the same configuration: every Durable Object starts again from its storage,
   * as a deployed object does after a reset, and requests in flight are cut off.
   */
  restart: () => Promise<void>;
}

/**
 * Serves the bundle built into `outdir` (`buildWorker`) against `stack`, with the bindings of `config`
 * (the wrangler.toml of the tree the bundle was built from), the local defaults and `variables`.
 * Disposed by the caller (`miniflare.dispose()`); on a failed start, here.
 */
export async function serveBundle(stack: LocalStack, outdir: string, options: ServeOptions): Promise<ServedBundle> {
  const port = String(await freePort());
  // The direct socket on a port of its own, so that the Worker answers at the same origin after a restart.
  const settings = miniflareOptions(stack, port, await freePort(), outdir, options);
  const miniflare = new Miniflare(settings);
  try {
    await miniflare.ready;
    const base = (await miniflare.unsafeGetDirectURL()).origin;
    return { miniflare, port, base, restart: () => miniflare.setOptions(settings) };
  } catch (error) {
    await miniflare.dispose();
    throw error;
  }
}

function miniflareOptions(
  stack: LocalStack,
  port: string,
  directPort: number,
  outdir: string,
  { objectsDir, config = "wrangler.toml", variables = {}, inspectorPort, output }: ServeOptions,
): ConstructorParameters<typeof Miniflare>[0] {
  const write = output ?? ((text: string) => process.stderr.write(text));
  const { workerOptions } = unstable_getMiniflareWorkerOptions(config);
  return {
    ...workerOptions,
    // No static assets (see the top of this file): the ASSETS binding is unset, as the Worker allows.
    assets: undefined,
    modules: true,
    scriptPath: join(outdir, "index.js"),
    modulesRoot: outdir,
    // As wrangler.toml's rules: text modules, and the YAML library's module beside the script.
    modulesRules: [
      { type: "Text", include: ["**/*.sql", "**/*.yml", "**/*.txt"] },
      { type: "ESModule", include: ["**/*.mjs"] },
    ],
    bindings: {
      ...workerOptions.bindings,
      ...localWorkerDefaults(stack, port, btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))),
      SVC_INGEST_RATE_LIMIT: "off",
      ...variables,
    },
    host: "127.0.0.1",
    port: Number(port),
    log: new Log(LogLevel.WARN),
    // The Worker's own output on stderr: a benchmark's stdout holds only its figures (`bench:scale --json`).
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      for (const stream of [stdout, stderr]) stream.on("data", (chunk: Buffer) => write(chunk.toString("utf8")));
    },
    handleStructuredLogs: ({ message }: { message: string }) => {
      write(`${message}\n`);
    },
    // No request to the internet for Request.cf (a failed one could reset the first request).
    cf: false,
    unsafeDirectSockets: [{ host: "127.0.0.1", port: directPort }],
    // On disk, so that a restart keeps the objects' storage (their identities, alarms, SQLite).
    durableObjectsPersist: objectsDir,
    ...(inspectorPort ? { inspectorPort } : {}),
  } as ConstructorParameters<typeof Miniflare>[0];
}

/** workerd processes started by this process (Miniflare's), read from /proc. */
export function workerdPids(): number[] {
  const parents = new Map<number, { ppid: number; comm: string }>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(Number(entry), { ppid, comm });
    } catch {
      // The process ended while the list was read.
    }
  }
  const descends = (pid: number): boolean => {
    for (let at = parents.get(pid); at; at = parents.get(at.ppid)) if (at.ppid === process.pid) return true;
    return false;
  };
  return [...parents].filter(([pid, { comm }]) => comm.startsWith("workerd") && descends(pid)).map(([pid]) => pid);
}
