// Building and sending event batches the way an engine does.
import { call } from "./http";

export interface EventInput {
  id?: unknown;
  type?: unknown;
  envId?: unknown;
  sequence?: unknown;
  occurredAt?: unknown;
  payload?: unknown;
}

export const isoAgo = (ms: number) => new Date(Date.now() - ms).toISOString();

export function makeEvent(overrides: EventInput = {}): EventInput {
  return { id: crypto.randomUUID(), type: "engine.log", occurredAt: isoAgo(1000), payload: {}, ...overrides };
}

export function postEvents(token: string, events: unknown[]): Promise<Response> {
  return call("/v1/events", { method: "POST", token, json: { events } });
}

export interface IngestBody {
  accepted: number;
  duplicates: number;
  rejected: number;
  unprojected: number;
  outcomes: Array<{ id: string; status: string; reason?: string; note?: string }>;
}
