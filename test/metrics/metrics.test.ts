// GET /metrics: the Prometheus text exposition (0.0.4), read with a real Prometheus text parser, and
// counters that hold for the whole deployment.
//
// Two isolates: what separates isolates is their memory, and an isolate's unflushed metrics live in
// the MetricsBuffer its one app holds (worker/index.ts builds one app per isolate). So two apps from
// createApp(), each with its own buffer, are two isolates as far as counting goes; both flush to the
// same Durable Object namespace, as every isolate of a deployment does. Each test names its own
// aggregating object, so the counts it asserts are exact whatever other test files do meanwhile.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import parsePrometheusTextFormat, { type ParsedFamily } from "parse-prometheus-text-format";
import { describe, expect, it } from "vitest";
import { createApp } from "../../worker/app";
import { MetricsBuffer } from "../../worker/metrics/buffer";
import { exposition } from "../../worker/metrics/exposition";
import { METRICS, seriesKey } from "../../worker/metrics/series";
import { seedTenant } from "../support/bearer-routes";
import { makeEvent } from "../support/events";
import { BASE, call, UNREACHABLE_DATABASE } from "../support/http";
import { captureLogs } from "../support/logs";
import { seedEnvironment, seedRun, type Claimed } from "../support/workloads";
import { forgetHeldRun } from "../../worker/workloads/held-runs";

const HOUR = 3_600_000;

/** An isolate: its own app and buffer, aggregating into `objectName`. */
function isolate(objectName: string, flushIntervalMs = HOUR) {
  const app = createApp({ metrics: new MetricsBuffer({ flushIntervalMs, objectName }) });
  return async (path: string, init: RequestInit & { token?: string; json?: unknown; env?: Record<string, string> } = {}) => {
    const headers = new Headers(init.headers);
    if (init.token) headers.set("authorization", `Bearer ${init.token}`);
    if (init.json !== undefined) headers.set("content-type", "application/json");
    const request = new Request(BASE + path, { ...init, headers, body: init.json !== undefined ? JSON.stringify(init.json) : init.body });
    const ctx = createExecutionContext();
    const response = await app.fetch(request, { ...env, ...init.env }, ctx);
    const body = await response.arrayBuffer();
    await waitOnExecutionContext(ctx);
    return new Response(body, response);
  };
}

type Isolate = ReturnType<typeof isolate>;

async function scrape(node: Isolate): Promise<ParsedFamily[]> {
  const response = await node("/metrics");
  expect(response.status).toBe(200);
  return parsePrometheusTextFormat(await response.text());
}

/** The value of one counter series (0 when absent). */
function counter(families: ParsedFamily[], name: string, labels: Record<string, string> = {}): number {
  const family = families.find((candidate) => candidate.name === name);
  expect(family, name).toBeDefined();
  const sample = family!.metrics.find((metric) => Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value));
  return sample ? Number(sample.value) : 0;
}

const uniqueObject = () => `test-${crypto.randomUUID()}`;

describe("GET /metrics", () => {
  it("answers without authentication in the Prometheus text format 0.0.4, every family typed and helped", async () => {
    const response = await call("/metrics");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const families = parsePrometheusTextFormat(await response.text());
    const expected = Object.entries(METRICS).map(([name, family]) => ({ name, type: family.type.toUpperCase() }));
    expect(families.map((family) => ({ name: family.name, type: family.type }))).toEqual(expected);
    for (const family of families) expect(family.help).not.toBe("");
  });

  it("counts requests by route template and status class, with a latency histogram per route", async () => {
    const node = isolate(uniqueObject());
    await node("/health");
    await node("/health");
    await node("/no/such/address", { method: "POST" });
    await node("/v1/workloads/runs/11111111-1111-4111-8111-111111111111/heartbeat", { method: "POST", json: {} });
    const families = await scrape(node);
    expect(counter(families, "svc_http_requests_total", { route: "/health", status_class: "2xx" })).toBe(2);
    expect(counter(families, "svc_http_requests_total", { route: "unmatched", status_class: "4xx" })).toBe(1);
    // The template, never the run id.
    expect(counter(families, "svc_http_requests_total", { route: "/v1/workloads/runs/:runId/heartbeat", status_class: "4xx" })).toBe(1);
    const histogram = families.find((family) => family.name === "svc_http_request_duration_seconds")!;
    expect(histogram.type).toBe("HISTOGRAM");
    // parse-prometheus-text-format 1.1.1 keeps one bucket set per histogram family and drops the _sum
    // and _count of labelled series (its flattenMetrics), so the per-route series are read from the
    // text it accepted as valid.
    const text = await (await node("/metrics")).text();
    const sample = (line: string) => Number(new RegExp(`^${line.replace(/[{}+.]/g, "\\$&")} (\\S+)$`, "m").exec(text)?.[1]);
    expect(sample('svc_http_request_duration_seconds_count{route="/health"}')).toBe(2);
    expect(sample('svc_http_request_duration_seconds_bucket{route="/health",le="+Inf"}')).toBe(2);
    expect(sample('svc_http_request_duration_seconds_sum{route="/health"}')).toBeGreaterThanOrEqual(0);
    const buckets = [...text.matchAll(/^svc_http_request_duration_seconds_bucket\{route="\/health",le="([^"]+)"\} (\S+)$/gm)];
    expect(buckets.map((match) => match[1])).toEqual(["0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"]);
    // Cumulative: never decreasing.
    const values = buckets.map((match) => Number(match[2]));
    expect(values).toEqual([...values].sort((a, b) => a - b));
  });

  it("sums counters across two isolates through the Durable Object", async () => {
    const objectName = uniqueObject();
    const first = isolate(objectName);
    const second = isolate(objectName);
    for (let i = 0; i < 3; i++) await first("/health");
    for (let i = 0; i < 2; i++) await second("/health");
    // Each isolate's first request flushed at once (1 + 1); the rest waits in its own memory. The
    // second isolate's scrape hands over what it holds and sees the first one's flushed request too.
    expect(counter(await scrape(second), "svc_http_requests_total", { route: "/health", status_class: "2xx" })).toBe(1 + 2);
    const families = await scrape(first);
    expect(counter(families, "svc_http_requests_total", { route: "/health", status_class: "2xx" })).toBe(5);
  });

  it("batches: an isolate flushes at most once per interval, and a scrape merges what it holds", async () => {
    const objectName = uniqueObject();
    const node = isolate(objectName);
    for (let i = 0; i < 20; i++) await node("/health");
    const families = await scrape(node);
    expect(counter(families, "svc_http_requests_total", { route: "/health", status_class: "2xx" })).toBe(20);
    // One flush after the first request, one by the scrape: not twenty.
    expect(counter(families, "svc_metrics_flushes_total")).toBe(2);

    // With no interval every request flushes, and the scrape finds nothing left to hand over.
    const eager = isolate(uniqueObject(), 0);
    for (let i = 0; i < 3; i++) await eager("/health");
    expect(counter(await scrape(eager), "svc_metrics_flushes_total")).toBe(3);
  });

  it("counts ingestion by outcome, claims, identity exchanges, webhook deliveries, rate-limit refusals and 500s", async () => {
    const node = isolate(uniqueObject());
    const tenant = await seedTenant("metrics");
    const duplicate = makeEvent();
    const ingested = await node("/v1/events", {
      method: "POST",
      token: tenant.engine,
      json: { events: [makeEvent(), duplicate, duplicate, makeEvent({ type: 7 })] },
    });
    expect(ingested.status).toBe(207);
    expect((await node("/v1/commands/claim", { method: "POST", token: tenant.engine, json: {} })).status).toBe(200);
    expect((await node("/v1/auth/codehost-oidc", { method: "POST", json: { token: "not-a-jwt" } })).status).toBe(401);
    expect((await node("/webhooks/codehost", { method: "POST", json: {} })).status).toBe(401);
    const limited = { SVC_INGEST_RATE_LIMIT: "1/2" };
    const other = await seedTenant("metrics-limited");
    await node("/v1/events", { method: "POST", token: other.engine, json: { events: [makeEvent(), makeEvent()] }, env: limited });
    expect((await node("/v1/events", { method: "POST", token: other.engine, json: { events: [makeEvent()] }, env: limited })).status).toBe(429);
    // The 500 is provoked on purpose: its log line is read, not printed.
    const failed = await captureLogs(async () => {
      expect((await node("/v1/events", { method: "POST", token: tenant.engine, json: { events: [makeEvent()] }, env: UNREACHABLE_DATABASE })).status).toBe(500);
    });
    expect(failed.event("request.failed")).toMatchObject({ code: "database_unavailable" });

    const families = await scrape(node);
    expect(counter(families, "svc_events_ingested_total", { outcome: "accepted" })).toBe(2 + 2);
    expect(counter(families, "svc_events_ingested_total", { outcome: "duplicate" })).toBe(1);
    expect(counter(families, "svc_events_ingested_total", { outcome: "rejected" })).toBe(1);
    expect(counter(families, "svc_claims_total", { kind: "command", outcome: "none" })).toBe(1);
    expect(counter(families, "svc_identity_exchanges_total", { outcome: "identity_unverified" })).toBe(1);
    expect(counter(families, "svc_webhook_deliveries_total", { sender: "codehost", outcome: "refused" })).toBe(1);
    expect(counter(families, "svc_rate_limit_refusals_total", { route: "/v1/events" })).toBe(1);
    expect(counter(families, "svc_unexpected_failures_total", { route: "/v1/events" })).toBe(1);

    // No organization, token or other identifier in any label: only the declared label names.
    const text = await (await node("/metrics")).text();
    for (const secret of [tenant.orgId, other.orgId, tenant.engine, duplicate.id as string]) expect(text).not.toContain(secret);
    for (const family of families) {
      const allowed = new Set<string>([...(METRICS[family.name as keyof typeof METRICS]?.labels ?? []), "le"]);
      for (const metric of family.metrics) for (const label of Object.keys(metric.labels ?? {})) expect(allowed, `${family.name} ${label}`).toContain(label);
    }
  });

  it("counts heartbeats by their way: through the environment's object for a run this isolate handed out, from the Worker for one it did not", async () => {
    const node = isolate(uniqueObject());
    const tenant = await seedTenant("metrics-beats");
    await seedEnvironment(tenant.engine, "env-1");
    const runId = await seedRun(tenant.orgId, "env-1");
    const claimed = await node("/v1/workloads/claim", { method: "POST", token: tenant.engine, json: { envId: "env-1" } });
    const { run } = (await claimed.json()) as Claimed;
    const heartbeat = () => node(`/v1/workloads/runs/${runId}/heartbeat`, { method: "POST", token: tenant.engine, json: { leaseId: run!.lease.id } });
    expect((await heartbeat()).status).toBe(200);
    forgetHeldRun(runId); // as if another isolate had handed the run out
    expect((await heartbeat()).status).toBe(200);
    expect((await heartbeat()).status).toBe(200);
    const families = await scrape(node);
    expect(counter(families, "svc_heartbeats_total", { via: "object" })).toBe(1);
    expect(counter(families, "svc_heartbeats_total", { via: "worker" })).toBe(2);
  });

  it("escapes label values so a parser reads them back exactly", () => {
    const route = 'odd "route" \\ with\na newline';
    const families = parsePrometheusTextFormat(exposition([[seriesKey("svc_http_requests_total", { route, status_class: "2xx" }), 3]]));
    expect(counter(families, "svc_http_requests_total", { route, status_class: "2xx" })).toBe(3);
    // A counter without labels reads 0 before its first count.
    expect(counter(families, "svc_metrics_flushes_total")).toBe(0);
  });
});
