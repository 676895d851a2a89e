// Every metric the service exposes at GET /metrics: names, help, types and label names. Label values
// come only from closed sets (route templates, status classes, outcomes): never an organization,
// token, repository or any other identifier, so the number of series stays bounded.
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

export const METRICS = {
  svc_http_requests_total: { type: "counter", help: "HTTP requests answered, by route template and status class.", labels: ["route", "status_class"] },
  svc_http_request_duration_seconds: {
    type: "histogram",
    help: "Time to answer an HTTP request (until the response starts), by route template.",
    labels: ["route"],
  },
  svc_unexpected_failures_total: { type: "counter", help: "Unexpected failures (500 answers), by route template.", labels: ["route"] },
  svc_rate_limit_refusals_total: { type: "counter", help: "Requests refused by a rate limit (429), by route template.", labels: ["route"] },
  svc_events_ingested_total: {
    type: "counter",
    help: "Engine events received on POST /v1/events, by outcome (accepted, duplicate, rejected).",
    labels: ["outcome"],
  },
  svc_claims_total: {
    type: "counter",
    help: "Engine claim requests (kind workload or command), by outcome: claimed (work handed out) or none (nothing waiting).",
    labels: ["kind", "outcome"],
  },
  svc_heartbeats_total: {
    type: "counter",
    help: "Workload heartbeats, by the way they reached the database: object (the run's environment object, for a run this isolate handed out) or worker (the request's own connection).",
    labels: ["via"],
  },
  svc_identity_exchanges_total: {
    type: "counter",
    help: "Workflow identity exchanges (POST /v1/auth/codehost-oidc), by outcome: minted or the refusal's code.",
    labels: ["outcome"],
  },
  svc_webhook_deliveries_total: {
    type: "counter",
    help: "Webhook deliveries received, by sender and outcome (accepted, refused, failed).",
    labels: ["sender", "outcome"],
  },
  svc_metrics_flushes_total: { type: "counter", help: "Batches of metrics the isolates have flushed to the aggregating Durable Object.", labels: [] },
} as const;

export type MetricName = keyof typeof METRICS;
type LabelsOf<N extends MetricName> = { [L in (typeof METRICS)[N]["labels"][number]]: string };
export type Labels<N extends MetricName> = LabelsOf<N>;

/** The storage key of one series (histograms: one key per bucket, plus _sum and _count). */
export const seriesKey = (name: string, labels: Record<string, string>): string => JSON.stringify([name, labels]);

export function parseSeriesKey(key: string): [string, Record<string, string>] | null {
  try {
    const parsed = JSON.parse(key) as unknown;
    if (Array.isArray(parsed) && typeof parsed[0] === "string" && typeof parsed[1] === "object" && parsed[1] !== null) {
      return [parsed[0], parsed[1] as Record<string, string>];
    }
  } catch {
    // A key this version does not know: left out of the exposition.
  }
  return null;
}
