// GET /metrics: the deployment's counters in the Prometheus text format, without authentication
// (spec: Authentication). Left out of /openapi.json (the spec lists what it carries).
import type { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { EXPOSITION_CONTENT_TYPE, exposition } from "./exposition";
import { planGate } from "../http/plan-gate";

export function registerMetrics(app: Hono<AppEnv>): void {
  app.get("/metrics", planGate("reachable"), async (c) => {
    const totals = await c.var.metrics.totals(c.env);
    return c.body(exposition(totals), 200, { "content-type": EXPOSITION_CONTENT_TYPE, "cache-control": "no-store" });
  });
}
