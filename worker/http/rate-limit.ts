// Rate limits: a token bucket per key in the RateLimiter Durable Object (exact across isolates and
// locations). A refusal is 429 with Retry-After and retryAfterSeconds.
import { DEADLINES, within } from "../../db/deadline";
import { assertNoTransaction } from "../../db/transaction";
import { namedObject } from "../object-calls";
import type { BucketRule, Take } from "../object-interfaces";
import type { Env } from "../env";
import { Refusal } from "./refusal";

/** Sign-in, magic-link, device-code and OAuth-callback attempts per client address. */
export const PER_ADDRESS_RULE: BucketRule = { capacity: 20, refillPerSecond: 20 / 60 };

export async function enforceRateLimit(env: Env, key: string, rule: BucketRule, cost = 1, message?: string): Promise<void> {
  assertNoTransaction("The rate limiter (a Durable Object)");
  const limiter = namedObject(env, env.RATE_LIMITER, key);
  // A bucket is memory only: it answers in milliseconds, or something is wrong with the platform.
  const taken: Take = await within(Promise.resolve(limiter.take(cost, rule)) as Promise<Take>, DEADLINES.objectMs, "The rate limiter (a Durable Object)");
  if (!taken.ok) throw new Refusal("rate_limited", message, taken.retryAfterSeconds);
}
