// The Durable Objects' interfaces, as the Worker calls them: declared once here, implemented by their
// classes in durable-objects/ (nothing in worker/ imports those classes, except the entry that hands
// them to the platform). Types only, so the bindings (env.ts) and the calls (object-calls.ts) both read them
// without a loop; a capability an object serves declares its calls on that object's interface where it
// makes them (EnvironmentApi: worker/workloads/environment-object.ts).
import type { LiveChange, LiveTopic } from "./shared/live";

/**
 * What an environment object's call answers: its value, or that the database could not be reached (an
 * RPC keeps an error's message, not its class, so the outage crosses as data and is raised again here).
 */
export type ObjectAnswer<T> = { value: T } | { unavailable: true } | { failed: string[] };

/**
 * One environment's object (ENVIRONMENTS): claims, heartbeats and the workload alarm, serialized per
 * environment. The capability it serves declares its calls where it makes them, extending this
 * interface: `claim`, `heartbeat` and `wake` (worker/workloads/environment-object.ts).
 */
export interface EnvironmentApi extends Rpc.DurableObjectBranded {}

/** Who opened a live channel, as the Worker checked it; kept on the socket across the object's hibernation. */
export interface Watcher {
  personId: string;
  sessionId: string;
  topics: LiveTopic[];
  /** When the Worker began checking (ms): an end the object heard since may have been missed by the check. */
  checkedAt: number;
}

/** Whose channels to close: a person's (in this organization), one session's, or everyone's. */
export type LiveAudience = { personId: string } | { sessionId: string } | "everyone";

/** An organization's live channel (LIVE): the console's WebSockets, and the changes sent to them. */
export interface LiveApi extends Rpc.DurableObjectBranded {
  /** Sends `change` to every channel listening to its topic; how many there were. */
  publish(change: LiveChange): number;
  /** Closes the audience's channels with `code` and `reason` (worker/shared/live.ts LIVE_CLOSE); how many. */
  end(audience: LiveAudience, code: number, reason: string): number;
}

export interface BucketRule {
  /** Units the bucket holds when full (the burst). */
  capacity: number;
  /** Units added back per second. */
  refillPerSecond: number;
}

export type Take = { ok: true } | { ok: false; retryAfterSeconds: number };

/** A token bucket per key (RATE_LIMITER), exact across isolates because one object holds it. */
export interface RateLimiterApi extends Rpc.DurableObjectBranded {
  take(cost: number, rule: BucketRule): Take;
}

/** Series key (worker/metrics/series.ts) and the amount to add. */
export type MetricsBatch = Array<[key: string, amount: number]>;

/** The deployment's counters (METRICS), fed in batches by every isolate. */
export interface MetricsApi extends Rpc.DurableObjectBranded {
  addAndRead(batch: MetricsBatch): MetricsBatch;
  add(batch: MetricsBatch): void;
}
