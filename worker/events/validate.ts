// Per-event validation: shape (spec: Ingested event), the timestamp window, and the payload its type
// declares (./types.ts, the table the composition root gives). A rejected event gets a reason and is not stored; the rest of the batch goes on.
import { describeIssue } from "../http/input";
import { IngestedEvent } from "./schemas";
import type { EventType, EventTypes } from "./event-type";

const DAY_MS = 86_400_000;
const MAX_AHEAD_MS = DAY_MS;
const MAX_BACK_MS = 365 * DAY_MS;

/** A valid event with what its type means here (undefined: a type this service does not know), or why it was rejected. */
export type Checked = { ok: true; event: IngestedEvent; type: EventType | undefined } | { ok: false; id: string; reason: string };

export function checkEvent(raw: unknown, index: number, now: number, types: EventTypes): Checked {
  const id = typeof (raw as { id?: unknown } | null)?.id === "string" ? (raw as { id: string }).id : "";
  const parsed = IngestedEvent.safeParse(raw);
  if (!parsed.success) return { ok: false, id, reason: `Event ${index}: ${describeIssue(parsed.error.issues[0]!)}.` };
  const event = parsed.data;
  const at = Date.parse(event.occurredAt);
  if (at > now + MAX_AHEAD_MS) return { ok: false, id, reason: "occurredAt is more than one day in the future." };
  if (at < now - MAX_BACK_MS) return { ok: false, id, reason: "occurredAt is more than one year in the past." };
  // Types whose payload this service acts on are held to its shape.
  const type = types.find(event.type);
  if (type) {
    const payload = type.payload.safeParse(event.payload ?? {});
    if (!payload.success) {
      const issue = payload.error.issues[0]!;
      return { ok: false, id, reason: `Event ${index}: ${describeIssue({ ...issue, path: ["payload", ...issue.path] })}.` };
    }
  }
  return { ok: true, event, type };
}
