// Node module hooks for running the control plane's code at build time (site/build/build.ts):
// migrations and the engine's workflow (.yml) are imported as text (wrangler's Text rule), and `cloudflare:workers`, which only the
// Durable Object classes use at module scope, is a stand-in with the same exports.
import { readFile } from "node:fs/promises";

const CLOUDFLARE_WORKERS =
  "data:text/javascript," +
  encodeURIComponent("export class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } } export const env = {};");

export async function resolve(specifier, context, nextResolve) {
  if (specifier === "cloudflare:workers") return { url: CLOUDFLARE_WORKERS, shortCircuit: true };
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (/\.(sql|yml)$/.test(url)) {
    return { format: "module", shortCircuit: true, source: `export default ${JSON.stringify(await readFile(new URL(url), "utf8"))};` };
  }
  return nextLoad(url, context);
}
