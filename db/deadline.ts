// Deadlines: nothing waits forever. A database that stops answering (a Neon compute suspended or
// restarting, a frozen server) leaves a sent statement unanswered with the socket still open, so
// every wait on the database, and on a Durable Object whose work is database work, is raced against a
// timer here. The values, and why each is what it is, are in db/README.md ("Deadlines").
import { AsyncLocalStorage } from "node:async_hooks";

export const DEADLINES = {
  /** Opening a connection (the WebSocket, a free slot in the request's pool). */
  connectMs: 5_000,
  /** One statement of a request's or an object's transaction: the slowest list at a year's scale takes well under one second. */
  statementMs: 5_000,
  /** A request's answer: a failure answered by then leaves an engine's 10-second budget a margin. */
  answerMs: 9_000,
  /** A call to an environment's Durable Object: its own statements' deadlines, and a wait for its turn behind another call. */
  objectMs: 8_000,
  /** One statement of scheduled work (the deletion's batches, the partition pass): longer, but not forever. */
  scheduledStatementMs: 60_000,
  /** Ending a pool: closing its connections must not hold a waitUntil past the platform's 30 seconds. */
  endMs: 5_000,
} as const;

/**
 * When the current request's answer is due (epoch ms), or null once its head is sent (a streamed body's
 * statements have their own deadlines only). Set by worker/http/services.ts around the handlers.
 */
const answerDue = new AsyncLocalStorage<{ at: number | null }>();

/** Runs `work` with its answer due in `ms`; `done()` lifts the deadline for whatever work goes on after the answer. */
export function answeringWithin<T>(ms: number, work: (done: () => void) => Promise<T>): Promise<T> {
  const due: { at: number | null } = { at: Date.now() + ms };
  return answerDue.run(due, () => work(() => (due.at = null)));
}

/** `capMs`, or less when the current request's answer is due sooner (never below one millisecond). */
export function budget(capMs: number): number {
  const at = answerDue.getStore()?.at;
  return at == null ? capMs : Math.max(1, Math.min(capMs, at - Date.now()));
}

/** Raised when a wait ran out: what was waited for, and how long. */
export class DeadlinePassed extends Error {
  override readonly name = "DeadlinePassed";
  constructor(
    readonly what: string,
    readonly ms: number,
  ) {
    super(`${what} did not answer within ${ms} ms.`);
  }
}

/**
 * `promise`, or a DeadlinePassed after `ms`. The promise is not cancelled (nothing here can cancel a
 * statement already sent): its later failure is swallowed so that it never surfaces as unhandled.
 */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  promise.catch(() => {});
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlinePassed(what, ms)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
