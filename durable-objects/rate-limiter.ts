// A token bucket per key (for example `ingest:<organization>`), exact across isolates because one
// object holds it. Held in memory: an evicted object restarts with a full bucket, which errs on the
// side of serving.
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../worker/env";
import type { BucketRule, RateLimiterApi, Take } from "../worker/object-interfaces";

export class RateLimiter extends DurableObject<Env> implements RateLimiterApi {
  #level: number | null = null;
  #updatedAt = 0;

  take(cost: number, rule: BucketRule): Take {
    const now = Date.now();
    const level = Math.min(rule.capacity, (this.#level ?? rule.capacity) + ((now - this.#updatedAt) / 1000) * rule.refillPerSecond);
    this.#updatedAt = now;
    if (cost <= level) {
      this.#level = level - cost;
      return { ok: true };
    }
    this.#level = level;
    const missing = Math.min(cost, rule.capacity) - level;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(missing / rule.refillPerSecond)) };
  }
}
