// Event ingestion is limited per organization, counted in events (SVC_INGEST_RATE_LIMIT).
import type { AppContext } from "../http/context";
import { enforceRateLimit } from "../http/rate-limit";

export async function takeIngestAllowance(c: AppContext, orgId: string, events: number): Promise<void> {
  const rule = c.var.config.events.ingestRateLimit;
  if (rule === null || events === 0) return;
  await enforceRateLimit(c.env, `ingest:${orgId}`, rule, events, "This organization is sending events faster than its ingestion limit.");
}
