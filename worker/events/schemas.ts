// Shapes of POST /v1/events (spec: Ingested event, IngestResult).
import { z } from "zod";

export const MAX_EVENTS_PER_BATCH = 500;

/** `environment.*` payload properties (spec: Environment event payload properties). */
export const EnvironmentPayload = z.looseObject({
  repository: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, "must be `owner/name`").optional(),
  branch: z.string().optional(),
  pull_request: z.int().min(1).optional(),
  started_at: z.iso.datetime({ offset: true }).optional(),
  ttl_seconds: z.number().min(1).optional(),
  // This service's own property: where the environment's web services answer.
  preview_urls: z.array(z.url({ protocol: /^https?$/ }).max(2000)).max(20).optional(),
});
export type EnvironmentPayload = z.infer<typeof EnvironmentPayload>;

export const IngestedEvent = z
  .object({
    id: z.string().min(1),
    type: z.string().min(1),
    envId: z.string().min(1).optional(),
    sequence: z.int().min(0).optional(),
    occurredAt: z.iso.datetime({ offset: true }),
    payload: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: "IngestedEvent" });
export type IngestedEvent = z.infer<typeof IngestedEvent>;

const NO_EVENTS_ARRAY = "must be a JSON object with an `events` array";

export const IngestRequest = z
  .object(
    { events: z.array(z.unknown(), { error: NO_EVENTS_ARRAY }).describe(`At most ${MAX_EVENTS_PER_BATCH} ingested events.`) },
    { error: NO_EVENTS_ARRAY },
  )
  .meta({ id: "IngestRequest" });

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
