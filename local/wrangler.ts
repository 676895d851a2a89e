// Running the Worker under `wrangler dev` for `npm start` and the benchmark.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

export function startWrangler(options: { port: string; envFile: string; persistTo: string; output: "inherit" | "ignore" }): ChildProcess {
  return spawn(
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
      stdio: ["ignore", options.output, options.output],
      // No request to the internet for Request.cf, no telemetry.
      env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
    },
  );
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
