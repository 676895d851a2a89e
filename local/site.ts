// The site host beside the control plane, for `npm start` and the end-to-end tests: built by
// `npm run site:build` (its forms posting to the given control plane) and served by `wrangler dev`
// with site/wrangler.toml on a port of its own.
import { spawn, type ChildProcess } from "node:child_process";
import { freePort } from "./free-port";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Builds site/dist with forms posting to `controlPlane`; rejects when the build fails. */
export function buildSite(controlPlane: string, output: "inherit" | "ignore" = "inherit"): Promise<void> {
  return new Promise((resolve, reject) => {
    const build = spawn(process.execPath, ["--import", "tsx", "--import", "./site/build/register.mjs", "site/build/build.ts"], {
      cwd: ROOT,
      stdio: ["ignore", output, "inherit"],
      env: { ...process.env, SITE_CONTROL_PLANE_URL: controlPlane },
    });
    build.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`npm run site:build exited with ${code}`))));
  });
}

/**
 * `wrangler dev` for the site. Its inspector gets a port of its own: two wrangler processes starting
 * together (the control plane's and this one) would otherwise both pick the same one and one fails.
 */
export async function startSite(options: { port: string; output: "inherit" | "ignore" }): Promise<ChildProcess> {
  const inspectorPort = String(await freePort());
  return spawn(
    ROOT + "node_modules/.bin/wrangler",
    [
      "dev",
      "--config",
      "site/wrangler.toml",
      "--ip",
      "127.0.0.1",
      "--port",
      options.port,
      "--inspector-port",
      inspectorPort,
      "--show-interactive-dev-session=false",
    ],
    {
      cwd: ROOT,
      stdio: ["ignore", options.output, options.output],
      env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
    },
  );
}

/** Waits (up to two minutes: it may start beside the control plane on a busy machine) until the site answers GET /api. */
export async function siteAnswers(port: string): Promise<boolean> {
  for (let attempt = 0; attempt < 480; attempt++) {
    const ok = await fetch(`http://127.0.0.1:${port}/api`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  console.error(`The site did not answer on port ${port} within two minutes; see wrangler's output above.`);
  return false;
}
