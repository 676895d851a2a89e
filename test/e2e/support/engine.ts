// What an engine does, with an engine token: report events, claim workload runs and keep them.
import { base } from "./browser";

async function asEngine(token: string, path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(base + path, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

let sequence = 0;

export async function report(token: string, envId: string, type: string, payload: Record<string, unknown> = {}): Promise<void> {
  sequence += 1;
  const event = { id: crypto.randomUUID(), type, envId, sequence, occurredAt: new Date().toISOString(), payload };
  const answer = await asEngine(token, "/v1/events", { events: [event] });
  if (answer.status !== 202 || answer.body.accepted !== 1) throw new Error(`the event was not accepted: ${answer.status} ${JSON.stringify(answer.body)}`);
}

export const claimRun = (token: string, envId: string) => asEngine(token, "/v1/workloads/claim", { envId });

export const heartbeat = (token: string, runId: string, leaseId: string) => asEngine(token, `/v1/workloads/runs/${runId}/heartbeat`, { leaseId });
