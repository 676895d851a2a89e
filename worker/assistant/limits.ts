// The assistant's daily limits (spec: Limits, "website assistant"): per owner, per UTC day. What a
// day is, when it resets and how a refusal says so: pure, so the node tests cover the boundaries.
export const DAILY_REQUESTS = 40;
export const DAILY_TOKENS = 180_000;

/** The UTC day `now` falls in, `YYYY-MM-DD`: the usage row's key. */
export const utcDay = (now: Date): string => now.toISOString().slice(0, 10);

/** The next 00:00 UTC after `now`: when the day's limits start again. */
export function nextReset(now: Date): Date {
  const reset = new Date(now);
  reset.setUTCHours(24, 0, 0, 0);
  return reset;
}

/** Whole seconds until the reset (at least 1), the refusal's Retry-After. */
export const secondsUntilReset = (now: Date): number => Math.max(1, Math.ceil((nextReset(now).getTime() - now.getTime()) / 1000));

/** "3 hours 12 minutes", "1 minute": how long until the reset, for a sentence. */
export function untilReset(now: Date): string {
  const minutes = Math.ceil(secondsUntilReset(now) / 60);
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  const unit = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;
  return [hours ? unit(hours, "hour") : "", rest || !hours ? unit(rest, "minute") : ""].filter(Boolean).join(" ");
}

/** A day's usage: requests counted, tokens used by settled answers and reserved by answers in flight. */
export interface DayUsage {
  requests: number;
  usedTokens: number;
  reservedTokens: number;
}

export const remaining = (usage: DayUsage) => ({
  requests: Math.max(0, DAILY_REQUESTS - usage.requests),
  tokens: Math.max(0, DAILY_TOKENS - usage.usedTokens - usage.reservedTokens),
});

/** Why a request that did not fit was refused, in a sentence that says when the limits reset. */
export function limitSentence(usage: DayUsage, bound: number, now: Date): string {
  const resets = `The limits reset at 00:00 UTC (in ${untilReset(now)}).`;
  if (usage.requests >= DAILY_REQUESTS) return `You have asked the assistant ${DAILY_REQUESTS} questions today, its daily limit. ${resets}`;
  return (
    `This question could use up to ${bound.toLocaleString("en-US")} tokens, more than the ${remaining(usage).tokens.toLocaleString("en-US")} ` +
    `left of your ${DAILY_TOKENS.toLocaleString("en-US")} for today. ${resets}`
  );
}
