// POST /v1/events (spec: POST /v1/events).
import type { Hono } from "hono";
import type { Tx } from "../../db/transaction";
import { admittedEngineToken, withEngineToken, type Principal } from "../auth";
import type { AppEnv, AppContext } from "../http/context";
import { BODY_LIMITS } from "../http/input";
import { Refusal } from "../http/refusal";
import { refusal, register, route, serverFailure } from "../openapi/declaration";
import { publishChanges } from "../live-channel";
import { answerBatch, applyStoreSteps, batchInsert, checkBatch, liveChangesOf, mayStore, type StoredBatch } from "./ingest";
import { IngestRequest, IngestResult, MAX_EVENTS_PER_BATCH } from "./schemas";
import type { EventTypes } from "./event-type";
import { enforceRateLimit } from "../http/rate-limit";

/** POST /v1/events, knowing the event types in `types`. */
const postEvents = (types: EventTypes) =>
  route({
    method: "post",
    path: "/v1/events",
    operationId: "ingestEvents",
    summary: "Ingest a batch of engine events",
    description:
      `Up to ${MAX_EVENTS_PER_BATCH} events. Idempotent on (organization, id, occurredAt): a retry is answered as duplicate. ` +
      "Unknown types are stored and project nothing. Items are validated one by one: a rejected event does not stop the rest.",
    tag: "events",
    security: ["engineToken"],
    gate: "gated",
    body: IngestRequest,
    bodyOptions: { limit: BODY_LIMITS.events },
    responses: {
      202: { description: "Every event accepted or duplicate", schema: IngestResult },
      207: { description: "Some events rejected; outcomes say which and why", schema: IngestResult },
      400: refusal("Body not JSON or no events array; nothing stored"),
      401: refusal("Token invalid"),
      402: refusal("The organization's plan lacks the hosted control plane"),
      403: refusal("Organization suspended; keep the batch and resend after retryAfterSeconds"),
      413: refusal(`More than ${MAX_EVENTS_PER_BATCH} events; nothing stored`),
      429: refusal("Too many events", { "Retry-After": "Seconds to wait before resending" }),
      500: serverFailure,
    },
    // The hook refuses a request with no token before its body is read, and reads the body before a
    // connection is taken; then the batch is checked, the token found and the batch stored (tokenAndStore).
    handler: async (c, { body: { events }, reply }) => {
      if (events.length > MAX_EVENTS_PER_BATCH) {
        // Authenticate, then validate: a stranger learns nothing of the limits (a wrong token is 401 whatever it sent).
        await admittedEngineToken(c);
        throw new Refusal("payload_too_large", `A batch holds at most ${MAX_EVENTS_PER_BATCH} events; this one has ${events.length}. Nothing was stored.`);
      }
      const { orgId, watched, batch } = await tokenAndStore(c, events, types);
      const result = answerBatch(batch);
      // Open consoles hear what the stored events changed; nobody watching, nobody is called.
      if (watched) c.executionCtx.waitUntil(publishChanges(c.env, orgId, liveChangesOf(batch)));
      c.var.metrics.count("svc_events_ingested_total", { outcome: "accepted" }, result.accepted);
      c.var.metrics.count("svc_events_ingested_total", { outcome: "duplicate" }, result.duplicates);
      c.var.metrics.count("svc_events_ingested_total", { outcome: "rejected" }, result.rejected);
      return reply(result.rejected > 0 ? 207 : 202, result);
    },
  });

/**
 * Finds the caller's engine token and stores the batch, in one transaction whose first statement
 * admits the token and whose insert stores nothing for a token it did not admit. A batch whose types
 * name no store step is stored in one round trip (the token, the insert and COMMIT sent together);
 * one that does needs the insert's answer first: three (withEngineToken). With a rate limit
 * (the default) the allowance is taken from a Durable Object first, and no transaction stays open
 * across a call to an object: the token is found in a round trip of its own before it (which also
 * tells whose allowance), and found again by the one that stores.
 */
async function tokenAndStore(c: AppContext, events: readonly unknown[], types: EventTypes): Promise<{ orgId: string; watched: boolean; batch: StoredBatch }> {
  let orgId: string | undefined;
  if (c.var.config.events.ingestRateLimit !== null) {
    orgId = (await admittedEngineToken(c)).orgId;
    await takeIngestAllowance(c, orgId, events.length);
  }
  // After the token's own round trip where there is one; without a rate limit the insert is written
  // from the valid events before the one round trip that finds the token (a stranger's batch is
  // checked, then refused whole, and its outcomes never answered).
  const checked = checkBatch(events, Date.now(), types);
  let storeNotes = new Map<number, string>();
  const then = mayStore(checked)
    ? async (tx: Tx, principal: Principal, stored: Set<number>) => {
        storeNotes = await applyStoreSteps(tx, principal.orgId, checked, stored);
      }
    : undefined;
  const { principal, value: stored } = await withEngineToken(c, batchInsert(checked), { ...(orgId ? { orgId } : {}), ...(then ? { then } : {}) });
  return { orgId: principal.orgId, watched: principal.organization.watched, batch: { ...checked, stored, storeNotes } };
}

// One declaration per table: the engines' app and the full app serve the very same route.
const declared = new WeakMap<EventTypes, ReturnType<typeof postEvents>>();

/** POST /v1/events, with every event type the composition root knows (worker/known-event-types.ts). */
export function registerEvents(app: Hono<AppEnv>, types: EventTypes): void {
  register(app, declared.get(types) ?? declared.set(types, postEvents(types)).get(types)!);
}

// Event ingestion is limited per organization, counted in events (SVC_INGEST_RATE_LIMIT).
export async function takeIngestAllowance(c: AppContext, orgId: string, events: number): Promise<void> {
  const rule = c.var.config.events.ingestRateLimit;
  if (rule === null || events === 0) return;
  await enforceRateLimit(c.env, `ingest:${orgId}`, rule, events, "This organization is sending events faster than its ingestion limit.");
}
