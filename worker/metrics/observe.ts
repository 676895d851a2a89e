// The first middleware: after every answer, count the request by route template and status class,
// observe its latency, and derive the route-specific counters (500s, 429s, identity exchanges,
// webhook deliveries) from the answer alone. Then maybe hand the batch over (buffer.ts).
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { AppEnv } from "../http/context";
import { ERROR_CODE_HEADER } from "../http/failure";
import type { MetricsBuffer } from "./buffer";

declare module "hono" {
  interface ContextVariableMap {
    /** This isolate's metrics buffer, set by the first middleware. */
    metrics: MetricsBuffer;
  }
}

const WEBHOOK_SENDERS: Record<string, string> = { "/webhooks/codehost": "codehost", "/webhooks/billing": "billing" };
const IDENTITY_EXCHANGE = "/v1/auth/codehost-oidc";

/** The template of the route that answered (`/v1/workloads/runs/:runId/heartbeat`), or `unmatched`. */
export function routeTemplate(c: Context<AppEnv>): string {
  const answered = matchedRoutes(c)[c.req.routeIndex];
  // Only the app-wide middlewares are `ALL /*`: the request reached no route.
  if (!answered || (answered.method === "ALL" && answered.path === "/*")) return "unmatched";
  return answered.path;
}

export function observe(metrics: MetricsBuffer): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = Date.now();
    c.set("metrics", metrics);
    let escaped = true;
    try {
      await next();
      escaped = false;
    } finally {
      // An error past the error handler reaches the runtime, which answers 500.
      const status = escaped ? 500 : c.res.status;
      const route = routeTemplate(c);
      metrics.count("svc_http_requests_total", { route, status_class: `${Math.floor(status / 100)}xx` });
      metrics.observeLatency(route, (Date.now() - started) / 1000);
      if (status === 500) metrics.count("svc_unexpected_failures_total", { route });
      if (status === 429) metrics.count("svc_rate_limit_refusals_total", { route });
      if (route === IDENTITY_EXCHANGE) {
        metrics.count("svc_identity_exchanges_total", {
          outcome: status < 300 ? "minted" : ((escaped ? null : c.res.headers.get(ERROR_CODE_HEADER)) ?? `${Math.floor(status / 100)}xx`),
        });
      }
      const sender = WEBHOOK_SENDERS[route];
      if (sender) metrics.count("svc_webhook_deliveries_total", { sender, outcome: status < 300 ? "accepted" : status >= 500 ? "failed" : "refused" });
      metrics.maybeFlush(c.env, c.executionCtx);
    }
  };
}
