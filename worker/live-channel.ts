// Telling an organization's open consoles that something changed, and closing the channels of whoever
// may no longer listen. Called after the change committed (never inside a transaction), never awaited
// by an answer's critical path where waitUntil serves, and never failing what changed: a change not
// delivered is read on the next one, or when the browser opens its channel again.
import { within } from "../db/deadline";
import type { Env } from "./env";
import { log } from "./log";
import { liveChannel } from "./object-calls";
import type { LiveAudience } from "./object-interfaces";
import { LIVE_CLOSE, type LiveChange } from "./shared/live";

/** The live object does no I/O of its own: an answer later than this is not worth waiting for. */
export const LIVE_CALL_MS = 2_000;

// What a closed channel tells the person (a WebSocket close reason holds at most 123 bytes).
export const MEMBERSHIP_ENDED = "Your membership of this organization ended.";
export const ROLE_CHANGED = "Your role changed; the channel opens again under it.";
export const SIGNED_OUT = "This session was signed out.";
export const SUSPENDED = "The organization was suspended.";

/** Sends `changes` to the organization's channels listening to their topics. */
export async function publishChanges(env: Env, orgId: string, changes: readonly LiveChange[]): Promise<void> {
  if (changes.length === 0) return;
  const channel = liveChannel(env, orgId);
  await quietly("live.publish_failed", Promise.all(changes.map((change) => channel.publish(change))));
}

/** Closes the audience's channels for good (LIVE_CLOSE.ended), saying why; or asks them to open again (renew). */
export async function endChannels(env: Env, orgId: string, audience: LiveAudience, reason: string, code: number = LIVE_CLOSE.ended): Promise<void> {
  await quietly("live.end_failed", Promise.resolve(liveChannel(env, orgId).end(audience, code, reason)));
}

/**
 * endChannels in each of `orgIds`: a person's sockets, or a session's, may be open in every
 * organization the person belongs to, each with its own object.
 */
export async function endChannelsIn(
  env: Env,
  orgIds: readonly string[],
  audience: LiveAudience,
  reason: string,
  code: number = LIVE_CLOSE.ended,
): Promise<void> {
  await Promise.all([...new Set(orgIds)].map((orgId) => endChannels(env, orgId, audience, reason, code)));
}

async function quietly(event: string, call: Promise<unknown>): Promise<void> {
  try {
    await within(call, LIVE_CALL_MS, "An organization's live channel");
  } catch (error) {
    log("warn", event, { errorClass: error instanceof Error ? error.name : typeof error });
  }
}
