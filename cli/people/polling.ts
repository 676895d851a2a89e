// RFC 8628 3.5: poll the token endpoint no faster than the interval the device-code answer gave;
// `slow_down` adds five seconds to it for the rest of the sign-in; stop at `expired_token`,
// `access_denied`, an unknown code, or when the code's lifetime is over. A control plane that does not
// answer, or answers that it is unavailable (a database waking up, a deploy), is waited for like a
// pending approval: the person may be approving in the browser meanwhile, and the code still lives.
export type PollOutcome =
  | { status: "issued"; token: string; scope: string }
  | { status: "expired_token" | "access_denied" | "invalid_grant"; description: string };

export type PollAnswer =
  | PollOutcome
  | { status: "authorization_pending"; description: string }
  | { status: "slow_down"; description: string }
  /** No answer, or 502, 503 or 504: why, for the sentence if the code expires meanwhile. */
  | { status: "unavailable"; description: string };

export const SLOW_DOWN_SECONDS = 5;

export interface Schedule {
  /** Seconds between polls, as the device-code answer gave it (5 when it gave none, RFC 8628 3.2). */
  interval: number;
  /** Seconds the device code lives. */
  expiresIn: number;
  poll(): Promise<PollAnswer>;
  sleep(seconds: number): Promise<void>;
  /** Seconds since some fixed moment. */
  now(): number;
}

export async function pollForToken(schedule: Schedule): Promise<PollOutcome> {
  let interval = schedule.interval > 0 ? schedule.interval : 5;
  const deadline = schedule.now() + schedule.expiresIn;
  for (;;) {
    await schedule.sleep(interval);
    const answer = await schedule.poll();
    if (answer.status === "authorization_pending" || answer.status === "unavailable") {
      if (schedule.now() < deadline) continue;
      const why = answer.status === "unavailable" ? ` while the control plane was unavailable (${answer.description})` : "";
      return { status: "expired_token", description: `The device code expired${why}; start the sign-in again.` };
    }
    if (answer.status === "slow_down") {
      interval += SLOW_DOWN_SECONDS;
      continue;
    }
    return answer;
  }
}
