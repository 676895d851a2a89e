// agents.run, load.run, workloads.start: the spec's agents.run limits, the default workflow, declared
// inputs only, every attempt recorded, and a run whose dispatch was refused still claimable.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { inTenant } from "../../db/transaction";
import { environmentObject } from "../../worker/object-calls";
import { STANDARD_WORKFLOW } from "../../worker/environments/engine-work";
import { defineWorkload } from "../../worker/workloads/requests";
import {
  acceptedDispatches,
  auditEntries,
  newEnvId,
  putWorkflow,
  refuseWorkflow,
  reportEnvironment,
  storedDispatch,
  workplace,
  type Workplace,
} from "../support/engine-work";
import { rpcClient, rpcPost } from "../support/rpc";
import { appPool } from "../support/sql";
import { browser } from "../support/sessions";
import { claim, runRow, type Claimed } from "../support/workloads";
import { statusAndCode } from "../support/refusals";

let place: Workplace;
let envId: string;

beforeEach(async () => {
  place = await workplace("runs");
  envId = newEnvId();
  await reportEnvironment(place, envId, { branch: "main" });
});

interface Answer {
  runId?: string;
  dispatch: { id: string; outcome: string; refusalStatus: number | null; workflow: string };
}

async function post(session: string, name: string, input: unknown) {
  const response = await rpcPost(session, name, input, await browser(session).csrf());
  return {
    status: response.status,
    code: response.headers.get("x-svc-error-code"),
    body: (await response.json()) as { result?: { data: Answer }; error?: { message: string } },
  };
}

async function seedVersion(orgId: string) {
  const pool = appPool();
  try {
    return (await inTenant(pool.connect, orgId, (tx) => defineWorkload(tx, orgId, `load-${crypto.randomUUID().slice(0, 6)}`, { steps: ["load"] }))).versionId;
  } finally {
    await pool.end();
  }
}

describe("agents.run", () => {
  it("dispatches the standard workflow by default on the environment's branch, with the inputs it declares", async () => {
    const answer = await (await rpcClient(place.sessions.member)).agents.run.mutate({ orgId: place.orgId, envId, workflows: ["checkout"] });
    expect(answer.dispatch).toMatchObject({
      outcome: "dispatched",
      workflow: STANDARD_WORKFLOW,
      ref: "main",
      inputs: { command: "agents", env_id: envId, workflows: JSON.stringify(["checkout"]) },
      droppedInputs: [],
    });
    expect(await storedDispatch(answer.dispatch.id)).toMatchObject({ workflow: STANDARD_WORKFLOW, outcome: "dispatched", dropped_inputs: [] });
    expect(await auditEntries(place.orgId, "workflow.dispatch_attempted")).toEqual([
      expect.objectContaining({ target: envId, data: expect.objectContaining({ procedure: "agents.run", command: "agents", dispatchId: answer.dispatch.id }) }),
    ]);
  });

  it("passes the workflows as JSON to a workflow that declares them", async () => {
    await putWorkflow(place.repository, "agents.yaml", "on:\n  workflow_dispatch:\n    inputs:\n      env_id: {}\n      workflows: {}\njobs: {}\n");
    const workflows = ["sign up, then pay", "refund"];
    const answer = await (await rpcClient(place.sessions.member)).agents.run.mutate({ orgId: place.orgId, envId, workflows, workflow: "agents.yaml" });
    expect(answer.dispatch).toMatchObject({
      outcome: "dispatched",
      inputs: { env_id: envId, workflows: JSON.stringify(workflows) },
      droppedInputs: ["command"],
    });
    expect((await acceptedDispatches(place.repository)).at(-1)).toMatchObject({ workflow: "agents.yaml", inputs: { workflows: JSON.stringify(workflows) } });
  });

  it("takes the spec's limits: 50 workflows of 1 to 200 characters, a workflow file of 1 to 100 characters", async () => {
    const longestFile = `${"w".repeat(96)}.yml`;
    const atLimits = await post(place.sessions.member, "agents.run", {
      orgId: place.orgId,
      envId,
      workflows: Array.from({ length: 50 }, (_, i) => String(i).padEnd(200, "x")),
      workflow: longestFile,
    });
    expect(atLimits.status).toBe(200);
    // Valid input, so it was attempted and recorded: the repository has no such workflow file.
    expect(atLimits.body.result!.data.dispatch).toMatchObject({ outcome: "refused", refusalStatus: 404, workflow: longestFile });

    for (const [why, input] of [
      ["51 workflows", { workflows: Array.from({ length: 51 }, () => "w") }],
      ["an empty workflow name", { workflows: [""] }],
      ["a workflow name of 201 characters", { workflows: ["x".repeat(201)] }],
      ["a workflow file of 101 characters", { workflow: `${"w".repeat(97)}.yml` }],
      ["an empty workflow file", { workflow: "" }],
      ["a workflow file that is not YAML", { workflow: "deploy.sh" }],
      ["a workflow file in a folder", { workflow: "../ci.yml" }],
      ["no envId", { envId: undefined }],
      ["an empty envId", { envId: "" }],
    ] as const) {
      const refused = await post(place.sessions.member, "agents.run", { orgId: place.orgId, envId, ...input });
      expect(refused.status, why).toBe(400);
    }
    expect(await auditEntries(place.orgId, "workflow.dispatch_attempted")).toHaveLength(1);
  });

  it("needs agents.run, and answers another organization's environment like a missing one", async () => {
    expect(statusAndCode(await post(place.sessions.viewer, "agents.run", { orgId: place.orgId, envId }))).toEqual([403, "forbidden"]);
    const other = await workplace("runs-other");
    const theirs = newEnvId();
    await reportEnvironment(other, theirs);
    const answer = await post(place.sessions.member, "agents.run", { orgId: place.orgId, envId: theirs });
    const missing = await post(place.sessions.member, "agents.run", { orgId: place.orgId, envId: newEnvId() });
    expect(statusAndCode(answer)).toEqual([404, "not_found"]);
    expect(answer.body).toEqual(missing.body);
    expect(await acceptedDispatches(other.repository)).toEqual([]);
  });

  it("refuses an environment that is torn down or has no branch to run on", async () => {
    await reportEnvironment(place, envId, {}, "environment.torn_down", 2);
    expect((await post(place.sessions.member, "agents.run", { orgId: place.orgId, envId })).body.error!.message).toMatch(/torn down/);
    const branchless = newEnvId();
    await reportEnvironment(place, branchless, { pull_request: 4 });
    const refused = await post(place.sessions.member, "agents.run", { orgId: place.orgId, envId: branchless });
    expect([refused.status, refused.code]).toEqual([409, "state_conflict"]);
    expect(refused.body.error!.message).toMatch(/no branch/);
    expect(await acceptedDispatches(place.repository)).toEqual([]);
  });
});

describe("load.run", () => {
  it("dispatches the load command and needs load.run", async () => {
    const answer = await (await rpcClient(place.sessions.admin)).load.run.mutate({ orgId: place.orgId, envId });
    expect(answer.dispatch).toMatchObject({ outcome: "dispatched", workflow: STANDARD_WORKFLOW, inputs: { command: "load", env_id: envId } });
    expect(await auditEntries(place.orgId, "workflow.dispatch_attempted")).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ procedure: "load.run" }) }),
    ]);
    expect(statusAndCode(await post(place.sessions.viewer, "load.run", { orgId: place.orgId, envId }))).toEqual([403, "forbidden"]);
  });
});

describe("workloads.start", () => {
  it("records the run, arms its deadline, dispatches with its id, and the engine claims it", async () => {
    const versionId = await seedVersion(place.orgId);
    const answer = await (await rpcClient(place.sessions.member)).workloads.start.mutate({ orgId: place.orgId, envId, versionId });
    expect(answer).toMatchObject({
      envId,
      runId: expect.any(String),
      version: 1,
      dispatch: { outcome: "dispatched", inputs: { command: "workload", env_id: envId, run_id: answer.runId } },
    });
    expect(await runRow(answer.runId)).toMatchObject({ state: "requested", env_id: envId, version_id: versionId });
    expect(await auditEntries(place.orgId, "workload_run.requested")).toEqual([
      expect.objectContaining({ target: answer.runId, data: expect.objectContaining({ envId, version: 1 }) }),
    ]);
    const alarm = await runInDurableObject(environmentObject(env, place.orgId, envId), (_, state) => state.storage.getAlarm());
    expect(alarm).toBeGreaterThan(Date.now() + 50 * 60_000);

    const claimed = (await (await claim(place.engine, envId)).json()) as Claimed;
    expect(claimed.run).toMatchObject({ id: answer.runId, version: { compiled: { steps: ["load"] } } });
  });

  it("keeps a run whose dispatch was refused recorded and claimable", async () => {
    await putWorkflow(place.repository, "refused.yml");
    await refuseWorkflow(place.repository, 403, "Resource not accessible by integration", "refused.yml");
    const versionId = await seedVersion(place.orgId);
    const started = await post(place.sessions.member, "workloads.start", { orgId: place.orgId, envId, versionId, workflow: "refused.yml" });
    expect(started.status).toBe(200);
    const { runId, dispatch } = started.body.result!.data;
    expect(dispatch).toMatchObject({ outcome: "refused", refusalStatus: 403 });
    expect(await storedDispatch(dispatch.id)).toMatchObject({
      outcome: "refused",
      refusal_status: 403,
      inputs: { command: "workload", env_id: envId, run_id: runId },
    });

    const claimResponse = await claim(place.engine, envId);
    expect(claimResponse.status).toBe(200);
    expect(((await claimResponse.json()) as Claimed).run?.id).toBe(runId);
  });

  it("answers another organization's version and environment like missing ones, and needs workloads.run", async () => {
    const other = await workplace("runs-other");
    const theirVersion = await seedVersion(other.orgId);
    const theirs = await post(place.sessions.member, "workloads.start", { orgId: place.orgId, envId, versionId: theirVersion });
    const missing = await post(place.sessions.member, "workloads.start", { orgId: place.orgId, envId, versionId: crypto.randomUUID() });
    expect(statusAndCode(theirs)).toEqual([404, "not_found"]);
    expect(theirs.body).toEqual(missing.body);

    const versionId = await seedVersion(place.orgId);
    expect(statusAndCode(await post(place.sessions.member, "workloads.start", { orgId: place.orgId, envId: newEnvId(), versionId }))).toEqual([
      404,
      "not_found",
    ]);
    expect(statusAndCode(await post(place.sessions.viewer, "workloads.start", { orgId: place.orgId, envId, versionId }))).toEqual([403, "forbidden"]);
    expect((await post(place.sessions.member, "workloads.start", { orgId: place.orgId, envId, versionId: "not-a-uuid" })).status).toBe(400);
    expect(await auditEntries(place.orgId, "workload_run.requested")).toEqual([]);
  });
});
