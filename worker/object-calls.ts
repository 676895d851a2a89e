// The Durable Objects as the Worker reaches them (their interfaces are object-interfaces.ts): by name, with a
// deadline, and how a call's failure is read.
import { budget, DEADLINES, DeadlinePassed, within } from "../db/deadline";
import { DatabaseUnreachable } from "../db/neon";
import { assertNoTransaction } from "../db/transaction";
import { configFor } from "./config/for-env";
import type { Env } from "./env";
import type { ObjectAnswer } from "./object-interfaces";

/** An environment object's call failed for a reason other than the database: its error classes (the object logged the rest). */
export class EnvironmentObjectFailed extends Error {
  override readonly name = "EnvironmentObjectFailed";
  constructor(readonly errorClasses: string[]) {
    super(`An environment's Durable Object failed (${errorClasses.join(" < ")}).`);
  }
}

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

/** The request header carrying the Watcher (JSON) from the Worker's checked route to the object. */
export const WATCHER_HEADER = "x-svc-watcher";

/** It talks to browsers, never to the database: it starts near whoever first reaches it. */
export function liveChannel(env: Env, orgId: string) {
  assertNoTransaction("An organization's live channel");
  return env.LIVE.get(env.LIVE.idFromName(orgId));
}

export const METRICS_OBJECT_NAME = "deployment";

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
