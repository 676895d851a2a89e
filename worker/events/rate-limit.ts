// Event ingestion is limited per organization, counted in events, by a token bucket in a Durable
// Object: exact across isolates and locations, unlike the platform's per-location rate-limit binding.
import type { AppContext } from "../http/context";
import { Refusal } from "../http/refusal";

export async function takeIngestAllowance(c: AppContext, orgId: string, events: number): Promise<void> {
  const rule = c.var.config.events.ingestRateLimit;
  if (rule === null || events === 0) return;
  const limiter = c.env.RATE_LIMITER.get(c.env.RATE_LIMITER.idFromName(`ingest:${orgId}`));
  const taken = await limiter.take(events, rule);
  if (!taken.ok) {
    throw new Refusal("rate_limited", "This organization is sending events faster than its ingestion limit.", taken.retryAfterSeconds);
  }
}
