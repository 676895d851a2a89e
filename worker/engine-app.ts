// The engines' own routes in an app of their own: an isolate whose first request is an engine's
// (a batch, a claim, a heartbeat, a command) builds these, not the console's, the operators' and the
// rest (bench/startup.ts). The full app serves the same routes too (worker/app.ts).
import type { Hono } from "hono";
import { appBase } from "./app-base";
import { registerCommands } from "./commands/routes";
import { EVENT_TYPES } from "./known-event-types";
import { registerEvents } from "./events/routes";
import type { AppEnv } from "./http/context";
import type { MetricsBuffer } from "./metrics/buffer";
import { declaredRoutes } from "./openapi/declaration";
import { registerWorkloads } from "./workloads/routes";

export function createEngineApp(metrics: MetricsBuffer): { app: Hono<AppEnv>; serves: (method: string, path: string) => boolean } {
  const app = appBase(metrics);
  registerEvents(app, EVENT_TYPES);
  registerWorkloads(app);
  registerCommands(app);
  // Each declared path (`{param}` matching one segment) as a pattern.
  const routes = declaredRoutes(app).map((route) => ({
    method: route.method.toUpperCase(),
    pattern: new RegExp(`^${route.path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
  }));
  return { app, serves: (method, path) => routes.some((route) => route.method === method && route.pattern.test(path)) };
}
