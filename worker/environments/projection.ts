// The environment projection as a pure function (spec: Environment rules 1-3): events are ordered by
// `sequence`, a late arrival never moves an environment backwards, and the row is created from
// whichever event arrives first, only if it names its repository.
import { ENVIRONMENT_STATES, type EnvironmentState } from "../../db/enums";
import type { EnvironmentPayload } from "./schemas";

export interface EnvironmentRow {
  repository: string;
  branch: string | null;
  pullRequest: number | null;
  state: EnvironmentState;
  lastSequence: number | null;
  /** Epoch milliseconds of the last applied event's occurredAt. */
  lastEventAt: number;
  startedAt: string | null;
  ttlSeconds: number | null;
  expiresAt: string | null;
  previewUrls: string[];
}

export interface ProjectionEvent {
  /** Position in the caller's list, echoed in the notes. */
  ref: number;
  type: string;
  sequence: number | null;
  /** Epoch milliseconds of occurredAt. */
  at: number;
  payload: EnvironmentPayload;
}

export interface Projected {
  row: EnvironmentRow | null;
  /** For each event that changed nothing, why (by ref). */
  notes: Map<number, string>;
}

const stateOf = (type: string): EnvironmentState | null => {
  const state = type.slice("environment.".length);
  return (ENVIRONMENT_STATES as readonly string[]).includes(state) ? (state as EnvironmentState) : null;
};

/** Sequence decides where both have one; otherwise the time the sender says it happened. */
function compare(a: { sequence: number | null; at: number }, b: { sequence: number | null; at: number }): number {
  if (a.sequence !== null && b.sequence !== null && a.sequence !== b.sequence) return a.sequence - b.sequence;
  return a.at - b.at;
}

function expiry(startedAt: string | null, ttlSeconds: number | null): string | null {
  if (startedAt === null || ttlSeconds === null) return null;
  return new Date(Date.parse(startedAt) + ttlSeconds * 1000).toISOString();
}

export function project(current: EnvironmentRow | null, events: readonly ProjectionEvent[]): Projected {
  let row = current;
  const notes = new Map<number, string>();
  for (const event of [...events].sort(compare)) {
    const state = stateOf(event.type);
    if (!state) {
      notes.set(event.ref, `${event.type} is not a known environment state, so it changes no environment.`);
      continue;
    }
    if (row && compare(event, { sequence: row.lastSequence, at: row.lastEventAt }) <= 0) {
      const last = row.lastSequence !== null ? `sequence ${row.lastSequence}` : `the event of ${new Date(row.lastEventAt).toISOString()}`;
      notes.set(event.ref, `Older than ${last}, already applied; a late event never moves an environment backwards.`);
      continue;
    }
    const { payload } = event;
    if (!row && !payload.repository) {
      notes.set(event.ref, "No environment exists yet and this event names no repository, so none was created.");
      continue;
    }
    const startedAt = payload.started_at ?? row?.startedAt ?? null;
    const ttlSeconds = payload.ttl_seconds ?? row?.ttlSeconds ?? null;
    row = {
      repository: payload.repository ?? row!.repository,
      branch: payload.branch ?? row?.branch ?? null,
      pullRequest: payload.pull_request ?? row?.pullRequest ?? null,
      state,
      lastSequence: event.sequence ?? row?.lastSequence ?? null,
      lastEventAt: event.at,
      startedAt,
      ttlSeconds,
      expiresAt: expiry(startedAt, ttlSeconds),
      previewUrls: payload.preview_urls ?? row?.previewUrls ?? [],
    };
  }
  return { row, notes };
}
