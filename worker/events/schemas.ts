// Shapes of POST /v1/events (spec: Ingested event, IngestResult).
import * as z from "zod";
import { RepositoryName } from "../codehost/repository";
import { BODY_LIMITS } from "../http/input";
import { storable, storableJson, text } from "../http/text";

export const MAX_EVENTS_PER_BATCH = 500;

/** Per-event limits (README: Limits); an event past one is rejected alone with a reason. */
export const EVENT_LIMITS = { id: 200, type: 100, envId: 200, branch: 255, payloadBytes: 64 * 1024, ttlSeconds: 10 * 365 * 86_400 } as const;

/** An environment's identifier as its engine names it (events, workload claims, console procedures). */
export const EnvId = text({ min: 1, max: EVENT_LIMITS.envId });

/** `environment.*` payload properties (spec: Environment event payload properties). */
export const EnvironmentPayload = z.looseObject({
  repository: RepositoryName.optional(),
  branch: text({ max: EVENT_LIMITS.branch }).optional(),
  pull_request: z.int().min(1).max(2_147_483_647).optional(),
  started_at: z.iso.datetime({ offset: true }).optional(),
  ttl_seconds: z.number().min(1).max(EVENT_LIMITS.ttlSeconds).optional(),
  // This service's own property: where the environment's web services answer.
  preview_urls: z
    .array(storable(z.url({ protocol: /^https?$/ }).max(2000)))
    .max(20)
    .optional(),
});
export type EnvironmentPayload = z.infer<typeof EnvironmentPayload>;

export const IngestedEvent = z
  .object({
    id: text({ min: 1, max: EVENT_LIMITS.id }),
    type: text({ min: 1, max: EVENT_LIMITS.type }),
    envId: EnvId.optional(),
    sequence: z.int().min(0).optional(),
    occurredAt: z.iso.datetime({ offset: true }),
    payload: storableJson(EVENT_LIMITS.payloadBytes).optional(),
  })
  .meta({ id: "IngestedEvent" });
export type IngestedEvent = z.infer<typeof IngestedEvent>;

const NO_EVENTS_ARRAY = "must be a JSON object with an `events` array";

export const IngestRequest = z
  .object(
    {
      events: z
        .array(z.unknown(), { error: NO_EVENTS_ARRAY })
        .describe(`At most ${MAX_EVENTS_PER_BATCH} ingested events, each checked on its own against IngestedEvent (a rejected one does not stop the rest).`),
    },
    { error: NO_EVENTS_ARRAY },
  )
  .meta({
    id: "IngestRequest",
    description: `At most ${BODY_LIMITS.events / 1024 / 1024} MiB of JSON (413 past it): a batch of large payloads must be split.`,
  });

export const OutcomeStatus = z.enum(["accepted", "duplicate", "rejected"]);

export const Outcome = z
  .strictObject({
    id: z.string(),
    status: OutcomeStatus,
    reason: z.string().optional().describe("Why the event was rejected."),
    note: z.string().optional().describe("Why an accepted event changed no environment row."),
  })
  .meta({ id: "IngestOutcome" });
export type Outcome = z.infer<typeof Outcome>;

export const IngestResult = z
  .strictObject({
    accepted: z.int().min(0),
    duplicates: z.int().min(0),
    rejected: z.int().min(0),
    unprojected: z.int().min(0).describe("Accepted events that changed no environment row."),
    outcomes: z.array(Outcome),
  })
  .meta({ id: "IngestResult" });
export type IngestResult = z.infer<typeof IngestResult>;
