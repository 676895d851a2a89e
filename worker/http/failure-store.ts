// The own-failure store: every unexpected failure (500) of a route or procedure, grouped by a
// fingerprint of its catalog code, route, error type (classes, SQLSTATE, constraint) and our own top
// frames, kept with its count, first and last occurrence and a redacted sample: the diagnosis the log
// line already carries (worker/http/diagnosis.ts), never a message, payload, token, cookie or header.
//
// Bounds. The database function svc_record_failure (db/migrations/0016_operators.sql) is the bound
// that holds across isolates: at most 500 groups, at most one write per group per 10 seconds (a
// write inside the interval changes nothing). In front of it each isolate keeps, per group, when it
// may next write and how many occurrences it held back meanwhile, so a burst costs one write per 10
// seconds per isolate, not one per failure; held-back occurrences go into that isolate's next write
// (a group's count is therefore a lower bound). The write runs after the answer (waitUntil) on a
// connection of its own, and any error of it is swallowed: the 500 is never changed or delayed.
// Plumbing, so both error handlers record without the operators capability, which reads the groups
// (worker/operators/failure-groups.ts).
import { sql } from "drizzle-orm";
import { withDb } from "../../db/neon";
import type { Config } from "../config/types";
import type { Diagnosis } from "./diagnosis";
import { log } from "../log";
import { sha256Hex } from "./hash";

export const MAX_FAILURE_GROUPS = 500;
export const WRITE_INTERVAL_MS = 10_000;
const TOP_FRAMES = 5;
const MAX_TRACKED = 1_000;

export interface Failure {
  requestId: string;
  code: string;
  /** The route template (`/v1/oidc/bindings/:binding`) or `rpc <procedure>`: never the path as sent. */
  route: string;
  method: string;
  diagnosis: Diagnosis;
}

/** A frame without its line and column, so a group survives a deploy that moves code around. */
const stableFrame = (frame: string) => frame.replace(/:\d+:\d+(\)?)$/, "$1").slice(0, 300);

export function errorType(diagnosis: Diagnosis): string {
  return [diagnosis.errorClass.join(" < "), diagnosis.sqlState, diagnosis.constraint].filter(Boolean).join(" ").slice(0, 300);
}

export async function fingerprintOf(failure: Failure): Promise<string> {
  const frames = failure.diagnosis.frames.slice(0, TOP_FRAMES).map(stableFrame);
  return sha256Hex(JSON.stringify([failure.code, failure.route, errorType(failure.diagnosis), frames]));
}

/**
 * What is stored of one occurrence: the diagnosis, which holds nothing of the request's content, and
 * the build that failed (its source map reads the frames of a minified upload: `svc frames`).
 */
export function redactedSample(failure: Failure, build: Config["build"]) {
  const { kind, errorClass, sqlState, constraint, frames } = failure.diagnosis;
  return {
    requestId: failure.requestId,
    build,
    method: failure.method,
    route: failure.route,
    code: failure.code,
    kind,
    errorClass,
    ...(sqlState ? { sqlState } : {}),
    ...(constraint ? { constraint } : {}),
    frames: frames.slice(0, TOP_FRAMES).map((frame) => frame.slice(0, 300)),
  };
}

/** Per isolate: when each group may next be written, and the occurrences held back until then. */
export class FailureThrottle {
  readonly #groups = new Map<string, { nextWriteAt: number; heldBack: number }>();

  /** How many occurrences to write now (this one and those held back), or 0 when this one is held back. */
  take(fingerprint: string, now: number): number {
    const group = this.#groups.get(fingerprint);
    if (group && now < group.nextWriteAt) {
      group.heldBack += 1;
      return 0;
    }
    this.#groups.delete(fingerprint);
    this.#groups.set(fingerprint, { nextWriteAt: now + WRITE_INTERVAL_MS, heldBack: 0 });
    // Oldest first: a flood of distinct failures cannot grow the map without bound.
    if (this.#groups.size > MAX_TRACKED) this.#groups.delete(this.#groups.keys().next().value!);
    return 1 + (group?.heldBack ?? 0);
  }

  /** The database held the write back (another isolate wrote within the interval): keep them for the next one. */
  giveBack(fingerprint: string, occurrences: number): void {
    const group = this.#groups.get(fingerprint);
    if (group) group.heldBack += occurrences;
  }
}

const ISOLATE_THROTTLE = new FailureThrottle();

export type WriteOutcome = "inserted" | "updated" | "throttled" | "full" | "held_back" | "off";

/** Records one occurrence through the application role's svc_record_failure. */
export async function storeFailure(config: Config, failure: Failure, options: { throttle?: FailureThrottle; now?: number } = {}): Promise<WriteOutcome> {
  if (!config.failures.store) return "off";
  const throttle = options.throttle ?? ISOLATE_THROTTLE;
  const fingerprint = await fingerprintOf(failure);
  const occurrences = throttle.take(fingerprint, options.now ?? Date.now());
  if (occurrences === 0) return "held_back";
  const outcome = await withDb(config.database.url, "svc_app", async (db) => {
    const { rows } = await db.execute<{ outcome: WriteOutcome }>(
      sql`SELECT svc_record_failure(${fingerprint}, ${failure.code}, ${failure.route}, ${errorType(failure.diagnosis)}, ${JSON.stringify(redactedSample(failure, config.build))}, ${occurrences}) AS outcome`,
    );
    return rows[0]!.outcome;
  });
  if (outcome === "throttled") throttle.giveBack(fingerprint, occurrences);
  if (outcome === "full") log("warn", "failure.store_full", { limit: MAX_FAILURE_GROUPS });
  return outcome;
}

/** For the error handlers: records after the answer, never throwing and never delaying it. */
export function recordFailure(config: Config | undefined, waitUntil: ((work: Promise<unknown>) => void) | undefined, failure: Failure): void {
  if (!config?.failures.store || !waitUntil) return;
  try {
    waitUntil(storeFailure(config, failure).catch(() => log("warn", "failure.store_failed", { requestId: failure.requestId })));
  } catch {
    // No execution context to wait on (a direct call without one): record nothing.
  }
}
