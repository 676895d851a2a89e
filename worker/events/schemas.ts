// Shapes of POST /v1/events (spec: Ingested event, IngestResult).
import * as z from "zod";
import { ENVIRONMENT_LIMITS, EnvId } from "../environments";
import { BODY_LIMITS } from "../http/input";
import { storableJson, text } from "../http/text";

export const MAX_EVENTS_PER_BATCH = 500;

/** Per-event limits (README: Limits); an event past one is rejected alone with a reason. */
export const EVENT_LIMITS = { id: 200, type: 100, payloadBytes: 64 * 1024, ...ENVIRONMENT_LIMITS } as const;

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
