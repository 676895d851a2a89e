// The Durable Objects as the Worker reaches them: each binding's interface, declared once here and
// implemented by its class in durable-objects/ (which imports this module; nothing in worker/ imports
// those classes, except the entry that hands them to the platform), and how a call's failure is read.
import { budget, DEADLINES, DeadlinePassed, within } from "../db/deadline";
import { DatabaseUnreachable } from "../db/neon";
import { assertNoTransaction } from "../db/transaction";
import { configFor } from "./config/for-env";
import type { Env } from "./env";
import type { LiveChange, LiveTopic } from "./shared/live";

/**
 * What an environment object's call answers: its value, or that the database could not be reached (an
 * RPC keeps an error's message, not its class, so the outage crosses as data and is raised again here).
 */
export type ObjectAnswer<T> = { value: T } | { unavailable: true } | { failed: string[] };

/** An environment object's call failed for a reason other than the database: its error classes (the object logged the rest). */
export class EnvironmentObjectFailed extends Error {
  override readonly name = "EnvironmentObjectFailed";
  constructor(readonly errorClasses: string[]) {
    super(`An environment's Durable Object failed (${errorClasses.join(" < ")}).`);
  }
}

/**
 * One environment's object (ENVIRONMENTS): projection, claims and the workload alarm, serialized per
 * environment. The capabilities it serves declare its calls where they make them, extending this
 * interface: `project` (worker/environments/projection.ts), `claim` and `wake` (worker/workloads/claim.ts).
 */
export interface EnvironmentApi extends Rpc.DurableObjectBranded {}

/**
 * Calls an environment object with a deadline (DEADLINES.objectMs, or less when the request's answer
 * is due sooner), once more when the platform says the failure was transient, and reads its answer.
 * Every call the object serves is database work under deadlines of its own, so an object that does not
 * answer in time, or answers `unavailable`, is the database being unreachable: the caller is told
 * `database_unavailable`, its signal to retry. Any other failure it answers is raised as
 * EnvironmentObjectFailed (internal_error, logged as kind durable_object).
 */
export async function askEnvironment<T>(call: () => Promise<ObjectAnswer<T>>): Promise<T> {
  const answer = await within(retryOnceIfRetryable(call), budget(DEADLINES.objectMs), "An environment's Durable Object").catch((error: unknown) => {
    throw error instanceof DeadlinePassed ? new DatabaseUnreachable(error) : error;
  });
  if ("value" in answer) return answer.value;
  if ("failed" in answer) throw new EnvironmentObjectFailed(answer.failed);
  throw new DatabaseUnreachable(new Error("The environment's Durable Object could not reach the database."));
}

export const environmentObjectName = (orgId: string, envId: string) => `${orgId}/${envId}`;

/**
 * The object called `name`. One that does not exist yet starts where SVC_OBJECT_LOCATION_HINT says (near
 * the database, which the environment object talks to on every call), else near this first caller,
 * which may be an edge location far from the database before Smart Placement has placed the Worker.
 */
export function namedObject<T extends Rpc.DurableObjectBranded | undefined>(env: Env, namespace: DurableObjectNamespace<T>, name: string) {
  const locationHint = configFor(env).database.objectLocationHint;
  return namespace.get(namespace.idFromName(name), locationHint ? { locationHint } : undefined);
}

export function environmentObject(env: Env, orgId: string, envId: string) {
  assertNoTransaction("An environment's Durable Object");
  return namedObject(env, env.ENVIRONMENTS, environmentObjectName(orgId, envId));
}

/** Who opened a live channel, as the Worker checked it; kept on the socket across the object's hibernation. */
export interface Watcher {
  personId: string;
  sessionId: string;
  topics: LiveTopic[];
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

/** The request header carrying the Watcher (JSON) from the Worker's checked route to the object. */
export const WATCHER_HEADER = "x-svc-watcher";

/** It talks to browsers, never to the database: it starts near whoever first reaches it. */
export function liveChannel(env: Env, orgId: string) {
  assertNoTransaction("An organization's live channel");
  return env.LIVE.get(env.LIVE.idFromName(orgId));
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

export const METRICS_OBJECT_NAME = "deployment";

/** The deployment's counters (METRICS), fed in batches by every isolate. */
export interface MetricsApi extends Rpc.DurableObjectBranded {
  addAndRead(batch: MetricsBatch): MetricsBatch;
  add(batch: MetricsBatch): void;
}

// Errors from a Durable Object call, as the platform marks them: `retryable` (a transient fault, safe
// to send again), `overloaded` (sending again makes it worse), `remote` (thrown by the object's code).
interface PlatformMarks {
  retryable?: unknown;
  overloaded?: unknown;
  remote?: unknown;
}

export function isDurableObjectError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const marks = error as PlatformMarks;
  return typeof marks.retryable === "boolean" || typeof marks.overloaded === "boolean" || marks.remote === true;
}

/** Calls once more when the platform says the failure was transient (and not an overload). */
export async function retryOnceIfRetryable<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const marks = (error ?? {}) as PlatformMarks;
    if (marks.retryable !== true || marks.overloaded === true) throw error;
    return call();
  }
}
