// Running the Worker under `wrangler dev` for `npm start` and the benchmark.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/**
 * wrangler dev's advice to curl /cdn-cgi/handler/scheduled answers `exception` here (the asset proxy
 * in front forwards fetch only: local/crons.ts); what works is said in its place.
 */
export const CRON_ADVICE =
  "Scheduled jobs run on their own while npm start runs; run one now with `npm run --silent svc -- cron run <job>` (`cron list` names them).";

/** The lines of wrangler's warning that scheduled Workers are not triggered locally, and how to curl one. */
const CRON_WARNING = [
  "Scheduled Workers are not automatically triggered",
  "To manually trigger a scheduled event",
  "/cdn-cgi/handler/scheduled",
  "test-cron-triggers-locally",
];

/** wrangler's output line as the person reads it: as it is, but its scheduled-Worker warning, which becomes CRON_ADVICE (null: left out). */
export function shownLine(line: string): string | null {
  const at = CRON_WARNING.findIndex((part) => line.includes(part));
  return at === -1 ? line : at === 0 ? CRON_ADVICE : null;
}

export function startWrangler(options: { port: string; envFile: string; persistTo: string; output: "inherit" | "ignore" }): ChildProcess {
  const child = spawn(
    ROOT + "node_modules/.bin/wrangler",
    [
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      options.port,
      "--env-file",
      options.envFile,
      "--persist-to",
      options.persistTo,
      "--show-interactive-dev-session=false",
    ],
    {
      cwd: ROOT,
      stdio: ["ignore", options.output === "inherit" ? "pipe" : "ignore", options.output === "inherit" ? "pipe" : "ignore"],
      // No request to the internet for Request.cf, no telemetry.
      env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
    },
  );
  for (const [stream, write] of [
    [child.stdout, console.log],
    [child.stderr, console.error],
  ] as const) {
    if (stream)
      createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => {
        const shown = shownLine(line);
        if (shown !== null) write(shown);
      });
  }
  return child;
}

/** Waits (up to a minute) until the Worker answers /health. */
export async function workerAnswers(port: string): Promise<boolean> {
  for (let attempt = 0; attempt < 240; attempt++) {
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  console.error(`The Worker did not answer on port ${port} within a minute; see wrangler's output above.`);
  return false;
}
