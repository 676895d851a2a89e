// The Worker's entry point: configuration is validated at isolate start (so `wrangler dev` and a
// deploy fail naming the variable), then requests go to the app (built on the first one) and cron
// events to the scheduler.
import { env } from "cloudflare:workers";
import { startWith } from "./config/for-env";
import type { Env } from "./env";

export { EnvironmentObject } from "../durable-objects/environment";
export { RateLimiter } from "../durable-objects/rate-limiter";
export { MetricsAggregator } from "../durable-objects/metrics";
export { LiveChannel } from "../durable-objects/live";

// Top-level await: the licence signature is verified (WebCrypto, no I/O) before the isolate serves
// anything; a licence that does not verify fails the start like any refused variable.
await startWith(env);

export default {
  // The apps (their routes and schemas) are built on first use, not at isolate start (bench/startup.ts):
  // each request awaits its own import, and each module is evaluated once.
  fetch: async (request, environment, ctx) => {
    // The local stack's cron route (worker/scheduled.ts): only while npm start sets its secret.
    const local = environment.SVC_LOCAL_CRON_SECRET ? await (await import("./scheduled")).localCron(request, environment) : null;
    return local ?? (await (await import("./apps")).appFor(request)).fetch(request, environment, ctx);
  },
  scheduled: async (controller, environment, _ctx) => (await import("./scheduled")).scheduled(controller, environment),
} satisfies ExportedHandler<Env>;
