// The console's live channel as both sides read it (worker/live/README.md): what a change names, who
// may hear it, and what a closing code asks the browser to do.
import type { Permission } from "./permissions";

/**
 * What changed, by what a page shows; each topic is heard only by a role holding its permission (the
 * same one that reads it). A change carries no data: the page reads again, with its own permissions.
 */
export const LIVE_TOPICS = {
  /** An environment's state, preview addresses, expiry or teardown. */
  environments: "environments.view",
  /** An environment's engine runs, verdicts, artifacts, goldens and network decisions. */
  records: "environments.view",
  /** Workload runs (waiting, claimed, ended) and definitions. */
  workloads: "workloads.view",
} as const satisfies Record<string, Permission>;

export type LiveTopic = keyof typeof LIVE_TOPICS;

/** One message on the channel: the topic, and the environment it concerns when it concerns one. */
export interface LiveChange {
  topic: LiveTopic;
  envId?: string;
}

/**
 * Said just before the server closes a channel: a browser reports a close only once the connection
 * itself has ended, which Chromium may wait 2 seconds for; this line is heard at once.
 */
export interface LiveClosing {
  closing: { code: number; reason: string };
}

export type LiveMessage = LiveChange | LiveClosing;

/**
 * A channel lives at most this long, then is asked to open again (LIVE_CLOSE.renew): opening checks the
 * session, membership and role afresh, so a revocation nobody announced (a session that expired)
 * closes the channel within this bound.
 */
export const LIVE_MAX_AGE_MS = 60 * 60 * 1000;

/**
 * How many channels one person may hold open in an organization (a tab each), and the organization in
 * all; one more is refused (429) until one closes. Every socket wakes the object only to be accepted.
 */
export const LIVE_LIMITS = { perPerson: 20, perOrganization: 1000 } as const;

/** Why the server closes a channel (WebSocket close codes of the application range). */
export const LIVE_CLOSE = {
  /** Open again now: the channel reached its age, or the person's role changed (opening checks it again). */
  renew: 4000,
  /** Do not open again: membership ended, the session was signed out, the organization suspended or deleted. */
  ended: 4403,
  /** The browser sent something other than the channel's `ping` (RFC 6455 1008, policy violation). */
  unexpected: 1008,
} as const;
