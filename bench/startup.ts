// Startup cost of the Worker: the bundle `wrangler deploy --dry-run` would upload (the Worker's own
// script only; the console's assets are counted apart) and its gzip size, then the script time at
// isolate start, from `wrangler check startup`'s CPU profile of that same bundle (workerd on this
// machine, not Cloudflare's CPUs), and the first requests' times (an engine's and another: each builds
// its app) beside the same requests repeated. Prints figures; asserts nothing.
//   BENCH_STARTUP_RUNS  profiles taken (default 5); the median and the minimum are printed.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request as httpRequest } from "node:http";
import { gzipSync } from "node:zlib";
import { buildWorker, withBenchWorker } from "./local-worker";

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 5);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const wrangler = (args: string[]) => execFileSync("npx", ["--no-install", "wrangler", ...args], { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });

/** Milliseconds of samples spent running script (everything but idle, GC and the engine's own work). */
function scriptMs(profile: Profile): { script: number; total: number } {
  const idle = new Set(
    profile.nodes.filter((n) => ["(idle)", "(garbage collector)", "(program)", "(root)"].includes(n.callFrame.functionName)).map((n) => n.id),
  );
  let script = 0;
  profile.samples.forEach((node, i) => {
    if (!idle.has(node)) script += profile.timeDeltas[i] ?? 0;
  });
  return { script: script / 1000, total: (profile.endTime - profile.startTime) / 1000 };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** One request on a connection of its own (no pooled socket the Worker may have closed meanwhile); resolves once the answer is read. */
function request(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(url, { method: options.method ?? "GET", headers: options.headers, agent: false }, (answer) => {
      answer.resume();
      answer.on("end", resolve);
      answer.on("error", reject);
    });
    sent.on("error", reject);
    sent.end(options.body);
  });
}

/**
 * The Worker's first engine request (a claim with an unknown token: it builds the engine app and
 * looks the token up), then its first other request (GET /health: it builds the full app), each beside
 * the median of the same request repeated.
 */
async function firstRequests(): Promise<Array<{ what: string; first: number; next: number }>> {
  return withBenchWorker({}, async ({ base }) => {
    const measure = async (what: string, send: () => Promise<void>) => {
      const time = async () => {
        const started = performance.now();
        await send();
        return performance.now() - started;
      };
      const first = await time();
      const next: number[] = [];
      for (let i = 0; i < 20; i++) next.push(await time());
      return { what, first, next: median(next) };
    };
    return [
      await measure("POST /v1/workloads/claim", () =>
        request(`${base}/v1/workloads/claim`, {
          method: "POST",
          headers: { authorization: "Bearer svc_eng_unknown", "content-type": "application/json" },
          body: JSON.stringify({ envId: "env-1" }),
        }),
      ),
      await measure("GET /health", () => request(`${base}/health`)),
    ];
  });
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "svc-startup-"));
  try {
    const outdir = join(dir, "out");
    buildWorker(outdir);
    // The same build as the upload's multipart form, which is what `check startup --worker` reads.
    const upload = join(dir, "worker.bundle");
    wrangler(["deploy", "--dry-run", "--outfile", upload]);
    const script = join(outdir, "index.js");
    const bytes = readFileSync(script);
    const modules = readdirSync(outdir).filter((f) => f !== "index.js" && !f.endsWith(".map") && f !== "README.md");
    const moduleBytes = modules.reduce((sum, f) => sum + statSync(join(outdir, f)).size, 0);

    const runs: { script: number; total: number }[] = [];
    for (let i = 0; i < RUNS; i++) {
      const outfile = join(dir, `startup-${i}.cpuprofile`);
      wrangler(["check", "startup", "--worker", upload, "--outfile", outfile]);
      runs.push(scriptMs(JSON.parse(readFileSync(outfile, "utf8")) as Profile));
    }

    const moduleGzip = modules.reduce((sum, f) => sum + gzipSync(readFileSync(join(outdir, f))).length, 0);
    console.log(
      `worker bundle        ${kib(bytes.length).padStart(12)}  (index.js; ${modules.length} modules beside it: migrations, the assistant's index, the YAML library, ${kib(moduleBytes)})`,
    );
    console.log(`worker bundle gzip   ${kib(gzipSync(bytes).length).padStart(12)}  (the modules beside it: ${kib(moduleGzip)} more)`);
    console.log(
      `startup script time  ${`${median(runs.map((r) => r.script)).toFixed(1)} ms`.padStart(12)}  (median of ${RUNS}; min ${Math.min(...runs.map((r) => r.script)).toFixed(1)} ms; profile span ${median(runs.map((r) => r.total)).toFixed(1)} ms)`,
    );
    for (const { what, first, next } of await firstRequests()) {
      console.log(`first ${what.padEnd(25)} ${`${first.toFixed(1)} ms`.padStart(9)}  (builds its app; the same request again: median ${next.toFixed(1)} ms)`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
