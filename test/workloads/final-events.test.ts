// Final workload events through POST /v1/events (spec: Events rule 5).
import { beforeEach, describe, expect, it } from "vitest";
import { makeEvent, postEvents, type IngestBody } from "../support/events";
import { seedOrganization, seedToken } from "../support/seed";
import { asRole } from "../support/sql";
import { claim, elapse, runRow, seedEnvironment, seedRun, type Claimed } from "../support/workloads";

let orgId: string;
let engineA: string;
let engineB: string;

beforeEach(async () => {
  orgId = (await seedOrganization("finals")).id;
  engineA = (await seedToken(orgId, "engine")).token;
  engineB = (await seedToken(orgId, "engine")).token;
  await seedEnvironment(engineA, "env-1");
});

const send = async (token: string, type: string, payload: Record<string, unknown>) =>
  (await (await postEvents(token, [makeEvent({ type, payload })])).json()) as IngestBody;

const storedEvent = (type: string, runId: string) =>
  asRole(
    "superuser",
    async (client) => (await client.query("SELECT payload FROM events WHERE org_id = $1 AND type = $2 AND payload->>'runId' = $3", [orgId, type, runId])).rows,
  );

describe("final workload events", () => {
  it("end the run when the sender holds it", async () => {
    const runId = await seedRun(orgId, "env-1");
    const { run } = (await (await claim(engineA, "env-1")).json()) as Claimed;
    const body = await send(engineA, "workload.finished", { runId, leaseId: run!.lease.id, verdict: "pass" });
    expect(body.outcomes[0]).toMatchObject({ status: "accepted", note: expect.stringMatching(/finished/) });
    expect(await runRow(runId)).toMatchObject({ state: "finished", end_event_id: body.outcomes[0]!.id });
  });

  it("end the run from any engine while nothing holds it", async () => {
    const runId = await seedRun(orgId, "env-1");
    await claim(engineA, "env-1");
    await elapse(runId, { lease: true });
    await send(engineB, "workload.cancelled", { runId });
    expect(await runRow(runId)).toMatchObject({ state: "cancelled" });
  });

  it("from an engine that lost the run: stored whole, the run unchanged, a sentence in the outcome", async () => {
    const runId = await seedRun(orgId, "env-1");
    const first = ((await (await claim(engineA, "env-1")).json()) as Claimed).run!;
    await elapse(runId, { lease: true });
    const second = ((await (await claim(engineB, "env-1")).json()) as Claimed).run!;
    const body = await send(engineA, "workload.finished", { runId, leaseId: first.lease.id, logs: ["a", "b"] });
    expect(body).toMatchObject({ accepted: 1, rejected: 0 });
    expect(body.outcomes[0]!.note).toMatch(/no longer holds workload run/);
    expect(await runRow(runId)).toMatchObject({ state: "accepted", lease_id: second.lease.id });
    expect(await storedEvent("workload.finished", runId)).toEqual([{ payload: { runId, leaseId: first.lease.id, logs: ["a", "b"] } }]);
  });

  it("change nothing for an unknown run or one already ended, and say so", async () => {
    const runId = await seedRun(orgId, "env-1");
    const { run } = (await (await claim(engineA, "env-1")).json()) as Claimed;
    await send(engineA, "workload.finished", { runId, leaseId: run!.lease.id });
    const again = await send(engineA, "workload.cancelled", { runId, leaseId: run!.lease.id });
    expect(again.outcomes[0]!.note).toMatch(/is finished/);
    const unknown = await send(engineA, "workload.finished", { runId: crypto.randomUUID() });
    expect(unknown.outcomes[0]!.note).toMatch(/No workload run/);
    expect(await runRow(runId)).toMatchObject({ state: "finished" });
  });

  it("in one batch, the first final event of a run applies, whichever its type", async () => {
    const runId = await seedRun(orgId, "env-1");
    const leaseId = ((await (await claim(engineA, "env-1")).json()) as Claimed).run!.lease.id;
    const response = await postEvents(engineA, [
      makeEvent({ type: "workload.finished", payload: { runId: crypto.randomUUID() } }),
      makeEvent({ type: "workload.cancelled", payload: { runId, leaseId } }),
      makeEvent({ type: "workload.finished", payload: { runId, leaseId } }),
    ]);
    expect(((await response.json()) as IngestBody).outcomes[2]!.note).toMatch(/is cancelled/);
    expect(await runRow(runId)).toMatchObject({ state: "cancelled" });
  });

  it("are rejected without a run id", async () => {
    const response = await postEvents(engineA, [makeEvent({ type: "workload.finished", payload: {} })]);
    expect(response.status).toBe(207);
    expect(((await response.json()) as IngestBody).outcomes[0]).toMatchObject({ status: "rejected", reason: expect.stringMatching(/runId/) });
  });
});
