// How long the installed `svc` takes for a person's command, from the process starting to its exit:
// the bundle `npm run build:cli` writes (cli/dist/svc.mjs), run by Node as `npm install -g ./cli`
// runs it. `--help` (start, parse, print) and `whoami` against a control plane that answers at once
// (a local server answering 401 as the service does to a revoked token, so the figure is the CLI's
// own cost, not a database's), beside the repository's `svc` (TypeScript through tsx) for contrast.
// Prints figures; asserts nothing. The target: under 300 ms at p50 for the installed one.
//   BENCH_CLI_RUNS  runs of each (default 20)
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { percentile } from "./figures";

const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 20);
const ROOT = fileURLToPath(new URL("../", import.meta.url));

execFileSync("npm", ["run", "--silent", "build:cli"], { cwd: ROOT, stdio: "inherit" });

// A control plane that refuses the token at once, as the service answers a revoked one.
const server = createServer((_, response) => {
  response.writeHead(401, { "content-type": "application/json", "x-svc-error-code": "unauthenticated" });
  response.end(JSON.stringify({ error: { code: "unauthenticated", message: "The token is not valid." } }));
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

// A signed-in person's configuration, outside the repository.
const home = mkdtempSync(join(tmpdir(), "svc-bench-cli-"));
mkdirSync(join(home, "svc"), { mode: 0o700 });
writeFileSync(
  join(home, "svc", "credentials.json"),
  JSON.stringify({ version: 1, controlPlanes: { [url]: { token: "svc_cli_bench", scopes: [], obtainedAt: new Date().toISOString() } } }),
  { mode: 0o600 },
);
const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: home, SVC_CONTROL_PLANE: url };

/** Milliseconds from spawning `command` to its exit. */
function timed(command: string, args: string[]): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: home, env, stdio: "ignore" });
    child.on("error", reject);
    child.on("close", () => resolve(performance.now() - started));
  });
}

async function measure(label: string, command: string, args: string[]): Promise<void> {
  await timed(command, args); // the file system's cache warm, as a person's second command finds it
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await timed(command, args));
  const f = (p: number) => `${percentile(times, p).toFixed(0)} ms`.padStart(7);
  console.log(`${label.padEnd(44)} p50 ${f(50)}  p95 ${f(95)}  max ${f(100)}`);
}

try {
  const installed = join(ROOT, "cli", "dist", "svc.mjs");
  console.log(`svc start-up, ${RUNS} runs each (process start to exit), Node ${process.version}`);
  await measure("installed svc --help", process.execPath, [installed, "--help"]);
  await measure("installed svc whoami (answered at once)", process.execPath, [installed, "whoami"]);
  await measure("node alone (node -e 0), the floor", process.execPath, ["-e", "0"]);
  await measure("repository svc whoami (tsx), for contrast", process.execPath, [join(ROOT, "cli", "bin.mjs"), "whoami"]);
} finally {
  server.close();
  rmSync(home, { recursive: true, force: true });
}
