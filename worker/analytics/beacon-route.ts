// POST /v1/site/events (spec: Other control plane routes; Beacon rules): the site beacon's batches.
// No authentication, so rate limited per client address; cross-origin only for SVC_SITE_ORIGIN origins. Payload shapes are "not shown" in
// the spec, so the route is served and validated but left out of /openapi.json; the README documents it.
import type { Hono } from "hono";
import * as z from "zod";
import type { BucketRule } from "../object-interfaces";
import { addressBucket, clientAddressOf } from "../http/client-address";
import type { AppContext, AppEnv } from "../http/context";
import { enforceRateLimit } from "../http/rate-limit";
import { Refusal } from "../http/refusal";
import { registerSitePreflight, siteCors } from "../http/site-cors";
import { refusal, register, route, serverFailure } from "../openapi/declaration";
import { MAX_BEACON_EVENTS, recordBeaconBatch, type Outcome } from "./beacon";

export const BEACON_PATH = "/v1/site/events";

/** Each event is judged on its own against the catalog (SiteBeaconEvent), so one bad event does not stop the rest. */
export const BeaconBatch = z
  .strictObject({ events: z.array(z.unknown()).describe(`At most ${MAX_BEACON_EVENTS} events, each judged on its own against SiteBeaconEvent.`) })
  .meta({ id: "SiteBeaconBatch" });

const BeaconResult = z
  .object({
    /** False when SVC_ANALYTICS_SURROGATE_SECRET is unset: nothing was recorded. */
    recording: z.boolean(),
    recorded: z.int(),
    duplicates: z.int(),
    refused: z.int(),
    outcomes: z.array(
      z.object({
        outcome: z.enum(["recorded", "duplicate", "refused", "not_recorded"]),
        reason: z.enum(["unknown_name", "undeclared_field", "invalid_field", "malformed"]).optional(),
      }),
    ),
  })
  .meta({ id: "SiteBeaconResult" });

/** Beacon batches per client address: a burst of 60, then one a second (a page view sends a few). */
export const SITE_BEACON_RULE: BucketRule = { capacity: 60, refillPerSecond: 1 };

// Before the body is read, and before any transaction: the limiter is a Durable Object.
const limitBatches = (c: AppContext) =>
  enforceRateLimit(c.env, addressBucket("site-beacon", clientAddressOf(c)), SITE_BEACON_RULE, 1, "Too many beacon batches from this address; try again later.");

const count = (outcomes: Outcome[], outcome: Outcome["outcome"]) => outcomes.filter((entry) => entry.outcome === outcome).length;

const postSiteEvents = route({
  method: "post",
  path: BEACON_PATH,
  operationId: "siteEvents",
  summary: "Record a batch of site beacon events",
  tag: "analytics",
  gate: "reachable",
  published: false,
  body: BeaconBatch,
  bodyOptions: { limit: 64 * 1024 },
  middleware: [siteCors, (c, next) => limitBatches(c).then(next)],
  responses: {
    200: { description: "Each event recorded, a duplicate, or refused with its reason (counted)", schema: BeaconResult },
    400: refusal("Body not JSON or no events array; nothing recorded"),
    403: refusal("A browser origin not in SVC_SITE_ORIGIN; nothing read or recorded"),
    413: refusal(`More than ${MAX_BEACON_EVENTS} events; nothing recorded`),
    429: refusal("Too many batches from this client address; nothing read or recorded", { "Retry-After": "Seconds until another batch is accepted" }),
    500: serverFailure,
  },
  handler: async (c, { body: { events }, reply }) => {
    if (events.length > MAX_BEACON_EVENTS) {
      throw new Refusal("payload_too_large", `A beacon batch holds at most ${MAX_BEACON_EVENTS} events; this one has ${events.length}. Nothing was recorded.`);
    }
    const secret = c.var.config.analytics.surrogateSecret;
    if (!secret) {
      // SVC_ANALYTICS_SURROGATE_SECRET unset: no analytics at all, not even a count of refusals.
      return reply(200, { recording: false, recorded: 0, duplicates: 0, refused: 0, outcomes: events.map(() => ({ outcome: "not_recorded" as const })) });
    }
    const outcomes = await recordBeaconBatch(c.var.database().connect, secret, events);
    return reply(200, {
      recording: true,
      recorded: count(outcomes, "recorded"),
      duplicates: count(outcomes, "duplicate"),
      refused: count(outcomes, "refused"),
      outcomes,
    });
  },
});

export function registerSiteBeacon(app: Hono<AppEnv>): void {
  registerSitePreflight(app, BEACON_PATH);
  register(app, postSiteEvents);
}
