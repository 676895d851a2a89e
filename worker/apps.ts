// Which app serves a request, each built on its first use: the engine app for the engines' own
// routes, the full app for everything else. One metrics buffer for both: they are one isolate.
import type { Hono } from "hono";
import type { AppEnv } from "./http/context";
import { MetricsBuffer } from "./metrics/buffer";

const metrics = new MetricsBuffer();

/** Built once, however many requests wait for it at the start; a failed build is tried again by the next request. */
function once<T>(build: () => Promise<T>): () => Promise<T> {
  let built: Promise<T> | null = null;
  return () =>
    (built ??= build().catch((error: unknown) => {
      built = null;
      throw error;
    }));
}

const engineApp = once(async () => (await import("./engine-app")).createEngineApp(metrics));
const fullApp = once(async () => (await import("./app")).createApp({ metrics }));

export async function appFor(request: Request): Promise<Hono<AppEnv>> {
  if (request.method === "POST") {
    const path = new URL(request.url).pathname;
    if (path.startsWith("/v1/")) {
      const engine = await engineApp();
      if (engine.serves("POST", path)) return engine.app;
    }
  }
  return fullApp();
}
