// The deployment's metrics: one object (named "deployment") holds every counter, fed by batches that
// each isolate flushes at most every few seconds (worker/metrics/buffer.ts), so the figures hold
// across isolates, which come and go. Kept in the object's SQLite storage: an evicted or restarted
// object keeps its totals.
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../worker/env";
import type { MetricsApi, MetricsBatch } from "../worker/object-interfaces";

export class MetricsAggregator extends DurableObject<Env> implements MetricsApi {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS series (key TEXT PRIMARY KEY, value REAL NOT NULL)");
  }

  /** Adds a batch (one SQLite transaction) and answers every total, the batch included. */
  addAndRead(batch: MetricsBatch): MetricsBatch {
    this.add(batch);
    return this.ctx.storage.sql
      .exec<{ key: string; value: number }>("SELECT key, value FROM series")
      .toArray()
      .map((row) => [row.key, row.value]);
  }

  add(batch: MetricsBatch): void {
    if (batch.length === 0) return;
    this.ctx.storage.transactionSync(() => {
      for (const [key, amount] of batch) {
        this.ctx.storage.sql.exec("INSERT INTO series (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = value + excluded.value", key, amount);
      }
      this.ctx.storage.sql.exec("INSERT INTO series (key, value) VALUES (?, 1) ON CONFLICT (key) DO UPDATE SET value = value + 1", FLUSHES_KEY);
    });
  }
}

/** How many batches the object has taken: proves the hot path batches (svc_metrics_flushes_total). */
const FLUSHES_KEY = JSON.stringify(["svc_metrics_flushes_total", {}]);
