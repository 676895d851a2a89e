// One isolate's not-yet-flushed metrics. The hot path only adds numbers to a Map; at most once per
// flush interval a request hands the batch to the aggregating Durable Object through waitUntil (after
// its response), and GET /metrics adds what is left and reads the deployment's totals in one call.
// Nothing here holds an I/O object across requests: only numbers.
import { DEADLINES, within } from "../../db/deadline";
import { assertNoTransaction } from "../../db/transaction";
import { METRICS_OBJECT_NAME, namedObject } from "../object-calls";
import type { MetricsBatch } from "../object-interfaces";
import type { Env } from "../env";
import { LATENCY_BUCKETS, seriesKey, type Labels, type MetricName } from "./series";

export const FLUSH_INTERVAL_MS = 5_000;

export class MetricsBuffer {
  private pending = new Map<string, number>();
  /** The first request of an isolate flushes at once; then at most once per interval. */
  private lastFlush = Number.NEGATIVE_INFINITY;

  private readonly flushIntervalMs: number;
  private readonly objectName: string;

  /** `objectName`: the aggregating object's name; only tests use another, to keep their counts apart. */
  constructor(options: { flushIntervalMs?: number; objectName?: string } = {}) {
    this.flushIntervalMs = options.flushIntervalMs ?? FLUSH_INTERVAL_MS;
    this.objectName = options.objectName ?? METRICS_OBJECT_NAME;
  }

  count<N extends MetricName>(name: N, labels: Labels<N>, amount = 1): void {
    if (amount === 0) return;
    const key = seriesKey(name, labels);
    this.pending.set(key, (this.pending.get(key) ?? 0) + amount);
  }

  /** A latency observation: its (non-cumulative) bucket, _sum and _count; the exposition cumulates. */
  observeLatency(route: string, seconds: number): void {
    const bucket = LATENCY_BUCKETS.find((bound) => seconds <= bound);
    const name = "svc_http_request_duration_seconds";
    this.add(seriesKey(`${name}_bucket`, { route, le: bucket === undefined ? "+Inf" : String(bucket) }), 1);
    this.add(seriesKey(`${name}_sum`, { route }), seconds);
    this.add(seriesKey(`${name}_count`, { route }), 1);
  }

  /** After a response: flush in the background if the interval has passed. */
  maybeFlush(env: Env, ctx: Pick<ExecutionContext, "waitUntil">, now = Date.now()): void {
    if (this.pending.size === 0 || now - this.lastFlush < this.flushIntervalMs) return;
    this.lastFlush = now;
    const batch = this.take();
    ctx.waitUntil(within(this.aggregator(env).add(batch), DEADLINES.objectMs, "The metrics aggregator").catch(() => this.putBack(batch)));
  }

  /** The deployment's totals: this isolate's pending figures added, then everything read back. */
  async totals(env: Env): Promise<MetricsBatch> {
    const batch = this.take();
    try {
      return (await within(this.aggregator(env).addAndRead(batch), DEADLINES.objectMs, "The metrics aggregator")) as unknown as MetricsBatch;
    } catch (error) {
      this.putBack(batch);
      throw error;
    }
  }

  private aggregator(env: Env) {
    assertNoTransaction("The metrics aggregator (a Durable Object)");
    return namedObject(env, env.METRICS, this.objectName);
  }

  private add(key: string, amount: number): void {
    this.pending.set(key, (this.pending.get(key) ?? 0) + amount);
  }

  private take(): MetricsBatch {
    const batch = [...this.pending];
    this.pending = new Map();
    return batch;
  }

  /** A batch the object did not take goes back, so no count is lost to a failed flush. */
  private putBack(batch: MetricsBatch): void {
    for (const [key, amount] of batch) this.add(key, amount);
  }
}
