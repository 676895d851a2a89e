// The closed catalog of the site beacon (spec: Beacon rules): the event names and, per name, the
// payload fields it may carry. Every field is a closed set or a short identifier pattern; there is no
// free-text field. What each dashboard metric means lives here too (analytics.catalog).
import * as z from "zod";
import { SITE_EVENT_NAMES, type SiteEventName } from "../../db/enums";
import { storable } from "../http/text";

/** Where a visit came from, reduced in the browser from the referrer and the campaign parameters. */
export const CHANNELS = ["direct", "search", "social", "email", "referral", "campaign", "internal"] as const;
export type Channel = (typeof CHANNELS)[number];

/** A page shape: the path with identifiers replaced by `:id`, lower case, at most 120 characters. */
export const PAGE_SHAPE = /^\/(?:(?:[a-z0-9][a-z0-9._-]{0,39}|:id)(?:\/(?:[a-z0-9][a-z0-9._-]{0,39}|:id)){0,7}\/?)?$/;
export const PAGE_SHAPE_MAX = 120;
/** A campaign identifier (utm_campaign reduced in the browser). */
export const CAMPAIGN = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

interface FieldRule {
  required: boolean;
  description: string;
  accepts: (value: unknown) => boolean;
}

const channel: FieldRule = {
  required: true,
  description: `where the visit came from: ${CHANNELS.join(", ")}`,
  accepts: (value) => typeof value === "string" && (CHANNELS as readonly string[]).includes(value),
};
const page: FieldRule = {
  required: true,
  description: "page shape: the path with identifiers replaced by :id, no query, no fragment",
  accepts: (value) => typeof value === "string" && value.length <= PAGE_SHAPE_MAX && PAGE_SHAPE.test(value),
};
const campaign: FieldRule = {
  required: false,
  description: "campaign identifier: lower-case letters, digits, dot, dash, underscore, at most 64",
  accepts: (value) => value === null || (typeof value === "string" && CAMPAIGN.test(value)),
};

export const EVENT_NAMES = SITE_EVENT_NAMES;
export type EventName = SiteEventName;

export const EVENT_CATALOG: Record<EventName, { description: string; fields: Record<string, FieldRule> }> = {
  page_landed: { description: "a page of the site was landed on", fields: { channel, page, campaign } },
  signup_reached: { description: "the visitor reached sign-up", fields: { channel, page, campaign } },
  contact_requested: { description: "the visitor sent a contact request", fields: { channel, page, campaign } },
};

/** The browser tab's session identifier: random and opaque; stored only as a keyed pseudonym. */
export const SESSION_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** One beacon event as the catalog accepts it (any other key is an undeclared field). */
export const BeaconEvent = z
  .strictObject({
    id: z.uuid().describe("The event's identifier, made in the browser: a retry collides on it."),
    name: z.enum(EVENT_NAMES),
    session: storable(z.string().regex(SESSION_ID)).describe("The tab's session identifier (8 to 64 letters, digits, dash, underscore)."),
    props: z
      .strictObject({
        channel: z.enum(CHANNELS),
        page: storable(z.string().max(PAGE_SHAPE_MAX).regex(PAGE_SHAPE)).describe(page.description),
        campaign: storable(z.string().regex(CAMPAIGN)).nullable().optional().describe(campaign.description),
      })
      .optional(),
  })
  .meta({ id: "SiteBeaconEvent" });

export const isEventName = (value: unknown): value is EventName => typeof value === "string" && Object.hasOwn(EVENT_CATALOG, value);

/** Every metric the rollup writes to analytics_daily, and what it counts. */
export const METRICS = {
  "site.page_landed": "Beacon events: pages landed on (dimension: channel)",
  "site.signup_reached": "Beacon events: sign-up reached",
  "site.contact_requested": "Beacon events: contact requests",
  "site.sessions_landed": "Distinct beacon sessions that landed on a page",
  "site.sessions_signup": "Distinct beacon sessions that reached sign-up",
  "site.refused": "Beacon events refused (dimension: reason: unknown_name, undeclared_field, invalid_field, malformed)",
  "site.duplicates": "Retried beacon events recorded as duplicates",
  "usage.signups": "People who signed in for the first time",
  "usage.organizations_created": "Organizations created",
  "usage.active_organizations": "Organizations whose engines reported events",
  "usage.environments": "Environments created",
  "usage.first_environments": "Organizations whose first environment was created",
  "usage.runs": "Runs started, as engines report them (run.started and workload.started events)",
} as const;
export type Metric = keyof typeof METRICS;

/** Events per beacon batch (spec: Limits). */
export const MAX_BEACON_EVENTS = 20;

/** The dashboard reads at most this many days back (spec: Limits, analytics working set). */
export const WORKING_SET_DAYS = 98;
/** Weekly retention cohorts (spec: Limits). */
export const COHORT_WEEKS = 12;
/** A retention cell is a percentage only over at least this many organizations, else a count. */
export const COHORT_MIN_FOR_PERCENT = 5;
