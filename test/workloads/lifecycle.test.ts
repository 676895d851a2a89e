// The workload lifecycle: versions (current and exploratory), promotion, archive; runs read,
// cancelled (at once when requested, through a durable command when accepted) and retried.
import { beforeEach, describe, expect, it } from "vitest";
import { acceptedDispatches, auditEntries, newEnvId, reportEnvironment, workplace, type Workplace } from "../support/engine-work";
import { makeEvent, postEvents } from "../support/events";
import { call } from "../support/http";
import { rpcClient } from "../support/rpc";
import { asRole } from "../support/sql";
import { claim, runRow, type Claimed } from "../support/workloads";

let place: Workplace;
let envId: string;
let client: Awaited<ReturnType<typeof rpcClient>>;

beforeEach(async () => {
  place = await workplace("life");
  envId = newEnvId();
  await reportEnvironment(place, envId, { branch: "main" });
  client = await rpcClient(place.sessions.member);
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (error: { data?: { httpStatus: number }; message: string }) => ({ status: error.data?.httpStatus, message: error.message }),
  );

async function defined(name = `w-${crypto.randomUUID().slice(0, 6)}`) {
  return client.workloads.define.mutate({ orgId: place.orgId, name, compiled: { steps: ["v1"] } });
}

describe("versions, explorations, promotion", () => {
  it("a new version becomes current; an exploration stays aside until promoted, and then is current", async () => {
    const { workloadId, versionId: v1 } = await defined("checkout");
    const v2 = await client.workloads.addVersion.mutate({ orgId: place.orgId, workloadId, compiled: { steps: ["v2"] } });
    expect(v2).toMatchObject({ number: 2, current: true });
    const v3 = await client.workloads.addVersion.mutate({ orgId: place.orgId, workloadId, compiled: { steps: ["v3"] }, exploratory: true });
    expect(v3).toMatchObject({ number: 3, exploratory: true, current: false });

    let listed = (await client.workloads.list.query({ orgId: place.orgId })).find((w) => w.id === workloadId)!;
    expect(listed).toMatchObject({ currentVersion: { id: v2.versionId, number: 2 }, latestVersion: { number: 3 }, explorations: 1 });

    // Only an exploration is promoted.
    expect(await failure(client.workloads.promote.mutate({ orgId: place.orgId, versionId: v1 }))).toMatchObject({
      status: 409,
      message: expect.stringMatching(/not an exploration/),
    });
    expect(await client.workloads.promote.mutate({ orgId: place.orgId, versionId: v3.versionId })).toMatchObject({ currentVersionId: v3.versionId, number: 3 });
    listed = (await client.workloads.list.query({ orgId: place.orgId })).find((w) => w.id === workloadId)!;
    expect(listed).toMatchObject({ currentVersion: { number: 3 }, explorations: 0 });

    const detail = await client.workloads.get.query({ orgId: place.orgId, workloadId });
    expect(detail.versions.map((v) => [v.number, v.exploratory, v.current, v.promotedAt !== null])).toEqual([
      [3, true, true, true],
      [2, false, false, false],
      [1, false, false, false],
    ]);
    expect((await auditEntries(place.orgId, "workload.promoted")).length).toBe(1);
    expect((await auditEntries(place.orgId, "workload.version_added")).length).toBe(2);
  });

  it("a viewer reads but cannot add a version", async () => {
    const { workloadId } = await defined();
    const viewer = await rpcClient(place.sessions.viewer);
    expect((await viewer.workloads.get.query({ orgId: place.orgId, workloadId })).versions).toHaveLength(1);
    expect(await failure(viewer.workloads.addVersion.mutate({ orgId: place.orgId, workloadId, compiled: {} }))).toMatchObject({ status: 403 });
  });
});

describe("archive", () => {
  it("an archived workload starts no new runs and takes no versions; its history stays readable", async () => {
    const { workloadId, versionId } = await defined();
    const started = await client.workloads.start.mutate({ orgId: place.orgId, envId, versionId });
    expect(await client.workloads.archive.mutate({ orgId: place.orgId, workloadId })).toMatchObject({ alreadyArchived: false });
    expect(await client.workloads.archive.mutate({ orgId: place.orgId, workloadId })).toMatchObject({ alreadyArchived: true });

    expect(await failure(client.workloads.start.mutate({ orgId: place.orgId, envId, versionId }))).toMatchObject({
      status: 409,
      message: expect.stringMatching(/archived/),
    });
    expect(await failure(client.workloads.addVersion.mutate({ orgId: place.orgId, workloadId, compiled: {} }))).toMatchObject({ status: 409 });
    expect((await client.workloads.list.query({ orgId: place.orgId })).map((w) => w.id)).not.toContain(workloadId);
    expect((await client.workloads.list.query({ orgId: place.orgId, includeArchived: true })).find((w) => w.id === workloadId)?.archivedAt).toBeTruthy();
    expect((await client.workloads.get.query({ orgId: place.orgId, workloadId })).archivedAt).not.toBeNull();
    expect(await client.workloads.getRun.query({ orgId: place.orgId, runId: started.runId })).toMatchObject({
      workload: { archived: true },
      state: "requested",
    });
  });
});

describe("cancel", () => {
  it("a requested run ends at once", async () => {
    const { versionId } = await defined();
    const { runId } = await client.workloads.start.mutate({ orgId: place.orgId, envId, versionId });
    expect(await client.workloads.cancelRun.mutate({ orgId: place.orgId, runId })).toEqual({ runId, state: "cancelled", commandId: null });
    expect((await runRow(runId)).state).toBe("cancelled");
    expect(await failure(client.workloads.cancelRun.mutate({ orgId: place.orgId, runId }))).toMatchObject({
      status: 409,
      message: expect.stringMatching(/already cancelled/),
    });
    // Nothing waits for an engine any more.
    expect(((await (await claim(place.engine, envId)).json()) as Claimed).run).toBeNull();
  });

  it("an accepted run gets one durable cancel command its engine claims; the engine's workload.cancelled ends it", async () => {
    const { versionId } = await defined();
    const { runId } = await client.workloads.start.mutate({ orgId: place.orgId, envId, versionId });
    const claimed = (await (await claim(place.engine, envId)).json()) as Claimed;
    const first = await client.workloads.cancelRun.mutate({ orgId: place.orgId, runId });
    expect(first).toMatchObject({ state: "accepted", commandId: expect.any(String) });
    expect(await client.workloads.cancelRun.mutate({ orgId: place.orgId, runId })).toEqual(first);

    const commands = (await (await call("/v1/commands/claim", { method: "POST", token: place.engine, json: {} })).json()) as {
      commands: Array<{ id: string; kind: string; runId: string; envId: string }>;
    };
    expect(commands.commands).toEqual([expect.objectContaining({ id: first.commandId, kind: "cancel", runId, envId })]);
    expect((await client.workloads.getRun.query({ orgId: place.orgId, runId })).cancel).toMatchObject({ commandId: first.commandId, state: "leased" });

    await postEvents(place.engine, [makeEvent({ type: "workload.cancelled", envId, payload: { runId, leaseId: claimed.run!.lease.id } })]).then((r) =>
      r.json(),
    );
    const run = await client.workloads.getRun.query({ orgId: place.orgId, runId });
    expect(run).toMatchObject({ state: "cancelled", attempts: 1, abandonReason: null });
    expect(run.endedAt).not.toBeNull();
    expect(run).not.toHaveProperty("lease.id");
  });
});

describe("retry", () => {
  it("an ended run is retried as a new run of the same version on the same environment, dispatched again", async () => {
    const { versionId } = await defined();
    const { runId } = await client.workloads.start.mutate({ orgId: place.orgId, envId, versionId });
    expect(await failure(client.workloads.retryRun.mutate({ orgId: place.orgId, runId }))).toMatchObject({
      status: 409,
      message: expect.stringMatching(/still requested/),
    });
    await client.workloads.cancelRun.mutate({ orgId: place.orgId, runId });
    const retried = await client.workloads.retryRun.mutate({ orgId: place.orgId, runId });
    expect(retried).toMatchObject({ retryOf: runId, envId, dispatch: { outcome: "dispatched" } });
    expect(retried.runId).not.toBe(runId);
    expect(await client.workloads.getRun.query({ orgId: place.orgId, runId: retried.runId })).toMatchObject({
      state: "requested",
      retryOf: runId,
      version: { id: versionId },
      attempts: 0,
    });
    expect((await acceptedDispatches(place.repository)).at(-1)).toMatchObject({ inputs: { run_id: retried.runId } });
  });

  it("another organization's run is not found, whatever the procedure", async () => {
    const { versionId } = await defined();
    const { runId } = await client.workloads.start.mutate({ orgId: place.orgId, envId, versionId });
    const other = await workplace("life-other");
    const stranger = await rpcClient(other.sessions.owner);
    expect(await failure(stranger.workloads.getRun.query({ orgId: other.orgId, runId }))).toMatchObject({ status: 404 });
    expect(await failure(stranger.workloads.cancelRun.mutate({ orgId: other.orgId, runId }))).toMatchObject({ status: 404 });
    expect(await failure(stranger.workloads.retryRun.mutate({ orgId: other.orgId, runId }))).toMatchObject({ status: 404 });
    expect((await runRow(runId)).state).toBe("requested");
  });
});

describe("suspension", () => {
  const suspend = (suspended: boolean) =>
    asRole("superuser", (db) => db.query("UPDATE organizations SET suspended_at = CASE WHEN $2 THEN now() END WHERE id = $1", [place.orgId, suspended]));
  // What a refused start would have left behind: a run row, a dispatch attempt, a workflow the fake code host ran.
  const traces = async () => ({
    ...(await asRole("superuser", async (db) => {
      const { rows } = await db.query(
        `SELECT (SELECT count(*) FROM workload_runs WHERE org_id = $1)::int AS runs, (SELECT count(*) FROM workflow_dispatches WHERE org_id = $1)::int AS attempts`,
        [place.orgId],
      );
      return rows[0] as { runs: number; attempts: number };
    })),
    dispatched: (await acceptedDispatches(place.repository)).length,
  });

  it("a suspended organization starts no engine work: refused before anything is stored or dispatched; lifted, it starts again", async () => {
    const { versionId } = await defined();
    const before = await traces();
    await suspend(true);
    const refused = { status: 403, message: expect.stringMatching(/suspended, so no engine can take new work/) };
    expect(await failure(client.workloads.start.mutate({ orgId: place.orgId, envId, versionId }))).toMatchObject(refused);
    expect(await failure(client.agents.run.mutate({ orgId: place.orgId, envId }))).toMatchObject(refused);
    expect(await failure(client.environments.create.mutate({ orgId: place.orgId, repository: place.repository.full, branch: "main" }))).toMatchObject(refused);
    expect(await traces()).toEqual(before);

    await suspend(false);
    expect(await client.workloads.start.mutate({ orgId: place.orgId, envId, versionId })).toMatchObject({ dispatch: { outcome: "dispatched" } });
    expect(await traces()).toEqual({ runs: before.runs + 1, attempts: before.attempts + 1, dispatched: before.dispatched + 1 });
  });
});
