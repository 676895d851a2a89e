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

/** Posts a batch every event of which is accepted (202), as a test's setup does. */
export async function sendAccepted(token: string, events: unknown[]): Promise<void> {
  const response = await postEvents(token, events);
  if (response.status !== 202) throw new Error(`the batch was answered ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
}

export interface IngestBody {
  accepted: number;
  duplicates: number;
  rejected: number;
  unprojected: number;
  outcomes: Array<{ id: string; status: string; reason?: string; note?: string }>;
}
