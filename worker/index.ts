// The Worker's entry point: configuration is validated at isolate start (so `wrangler dev` and a
// deploy fail naming the variable), then requests go to the app and cron events to the scheduler.
import { env } from "cloudflare:workers";
import { createApp } from "./app";
import { startWith } from "./config/for-env";
import type { Env } from "./env";
import { scheduled } from "./scheduled";

export { EnvironmentObject } from "../durable-objects/environment";
export { RateLimiter } from "../durable-objects/rate-limiter";
export { MetricsAggregator } from "../durable-objects/metrics";

// Top-level await: the licence signature is verified (WebCrypto, no I/O) before the isolate serves
// anything; a licence that does not verify fails the start like any refused variable.
await startWith(env);

const app = createApp();

export default {
  fetch: (request, environment, ctx) => app.fetch(request, environment, ctx),
  scheduled: (controller, environment, _ctx) => scheduled(controller, environment),
} satisfies ExportedHandler<Env>;
