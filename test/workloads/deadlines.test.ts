// Deadlines: a run past its deadline is abandoned, recording which silence it was; the environment
// object's alarm does it, and the Cron sweep backs it up.
import { createExecutionContext, createScheduledController, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import worker from "../../worker/index";
import { environmentObject } from "../../worker/object-calls";
import { quietly } from "../support/logs";
import { appPool, asRole } from "../support/sql";
import { inTenant } from "../../db/transaction";
import { defineWorkload, requestRun } from "../../worker/workloads/requests";
import { SWEEP_CRON } from "../../worker/scheduled";
import { makeEvent, postEvents, type IngestBody } from "../support/events";
import { seedOrganization, seedToken } from "../support/seed";
import { claim, elapse, fireAlarm, runRow, seedEnvironment, seedRun, type Claimed } from "../support/workloads";

let orgId: string;
let engineA: string;
let engineB: string;

beforeEach(async () => {
  orgId = (await seedOrganization("deadline")).id;
  engineA = (await seedToken(orgId, "engine")).token;
  engineB = (await seedToken(orgId, "engine")).token;
  await seedEnvironment(engineA, "env-1");
});

const lease = async (token: string) => ((await (await claim(token, "env-1")).json()) as Claimed).run!.lease.id;

describe("abandonment by the environment's alarm", () => {
  it("never claimed", async () => {
    const runId = await seedRun(orgId, "env-1");
    await elapse(runId, { deadline: true });
    expect(await fireAlarm(orgId, "env-1")).toBe(true);
    expect(await runRow(runId)).toMatchObject({ state: "abandoned", abandon_reason: "never_claimed" });
  });

  it("claimed then quiet", async () => {
    const runId = await seedRun(orgId, "env-1");
    await lease(engineA);
    await elapse(runId, { lease: true, deadline: true });
    await fireAlarm(orgId, "env-1");
    expect(await runRow(runId)).toMatchObject({ state: "abandoned", abandon_reason: "claimed_then_quiet" });
  });

  it("changed hands then quiet", async () => {
    const runId = await seedRun(orgId, "env-1");
    await lease(engineA);
    await elapse(runId, { lease: true });
    await lease(engineB);
    await elapse(runId, { lease: true, deadline: true });
    await fireAlarm(orgId, "env-1");
    expect(await runRow(runId)).toMatchObject({ state: "abandoned", abandon_reason: "changed_hands_then_quiet" });
  });

  it("changed hands and the first engine tried to end it", async () => {
    const runId = await seedRun(orgId, "env-1");
    const firstLease = await lease(engineA);
    await elapse(runId, { lease: true });
    await lease(engineB);
    const response = await postEvents(engineA, [makeEvent({ type: "workload.finished", payload: { runId, leaseId: firstLease } })]);
    const body = (await response.json()) as IngestBody;
    expect(body.outcomes[0]).toMatchObject({ status: "accepted", note: expect.stringMatching(/no longer holds/) });
    expect(await runRow(runId)).toMatchObject({ state: "accepted" });

    await elapse(runId, { lease: true, deadline: true });
    await fireAlarm(orgId, "env-1");
    expect(await runRow(runId)).toMatchObject({ state: "abandoned", abandon_reason: "changed_hands_first_engine_tried_to_end" });
  });

  it("is armed when a run is requested, at its deadline, and re-armed by its firing for the next deadline or none", async () => {
    const alarm = () => runInDurableObject(environmentObject(env, orgId, "env-1"), (_, state) => state.storage.getAlarm());
    const runId = await seedRun(orgId, "env-1");
    expect(await alarm()).toBe(((await runRow(runId)).deadline_at as Date).getTime());
    await asRole("superuser", (client) => client.query("UPDATE workload_runs SET state = 'cancelled' WHERE id = $1", [runId]));
    await fireAlarm(orgId, "env-1");
    expect(await alarm()).toBeNull();
  });

  it("is armed by a claim at the claimed run's deadline when nothing before it armed one", async () => {
    const alarm = () => runInDurableObject(environmentObject(env, orgId, "env-1"), (_, state) => state.storage.getAlarm());
    await postEvents(engineA, [makeEvent({ type: "environment.ready", envId: "env-1", sequence: 10, payload: { repository: "acme/shop", branch: "main" } })]);
    expect(await alarm()).toBeNull();
    // Requested without waking the object: only the claim can tell it of the run's deadline.
    const pool = appPool();
    const runId = await inTenant(pool.connect, orgId, async (tx) =>
      requestRun(tx, orgId, "env-1", (await defineWorkload(tx, orgId, "quiet", { steps: ["load"] })).versionId),
    ).finally(() => pool.end());
    await lease(engineA);
    expect(await alarm()).toBe(((await runRow(runId)).deadline_at as Date).getTime());
  });

  it("leaves a run whose deadline has not passed", async () => {
    const runId = await seedRun(orgId, "env-1");
    await lease(engineA);
    await fireAlarm(orgId, "env-1");
    expect(await runRow(runId)).toMatchObject({ state: "accepted" });
  });
});

describe("the Cron sweep backstop", () => {
  it("abandons overdue runs of every organization as the maintenance role", async () => {
    const other = (await seedOrganization("deadline-other")).id;
    const otherToken = (await seedToken(other, "engine")).token;
    await seedEnvironment(otherToken, "env-x");
    const mine = await seedRun(orgId, "env-1");
    const theirs = await seedRun(other, "env-x");
    const live = await seedRun(orgId, "env-1");
    await elapse(mine, { deadline: true });
    await elapse(theirs, { deadline: true });

    // The sweep's lines (cron.started, each step's count) are not what this test reads.
    await quietly(async () => {
      const ctx = createExecutionContext();
      await worker.scheduled!(createScheduledController({ cron: SWEEP_CRON, scheduledTime: new Date() }), env, ctx);
      await waitOnExecutionContext(ctx);
    });
    expect(await runRow(mine)).toMatchObject({ state: "abandoned", abandon_reason: "never_claimed" });
    expect(await runRow(theirs)).toMatchObject({ state: "abandoned", abandon_reason: "never_claimed" });
    expect(await runRow(live)).toMatchObject({ state: "requested" });
  });
});
