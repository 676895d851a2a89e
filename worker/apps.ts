// Which app serves a request, each built on its first use: the engine app for the engines' own
// routes, the full app for everything else. One metrics buffer for both: they are one isolate.
import type { Hono } from "hono";
import type { AppEnv } from "./http/context";
import { MetricsBuffer } from "./metrics/buffer";

const metrics = new MetricsBuffer();
let engine: ReturnType<typeof import("./engine-app").createEngineApp> | null = null;
let full: Hono<AppEnv> | null = null;

export async function appFor(request: Request): Promise<Hono<AppEnv>> {
  if (request.method === "POST") {
    const path = new URL(request.url).pathname;
    if (path.startsWith("/v1/")) {
      engine ??= (await import("./engine-app")).createEngineApp(metrics);
      if (engine.serves("POST", path)) return engine.app;
    }
  }
  full ??= (await import("./app")).createApp({ metrics });
  return full;
}
