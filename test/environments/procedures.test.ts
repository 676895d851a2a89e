// environments.*: reading the projection, create dispatching the workflow with a new envId (refused
// dispatches recorded too), teardown as a durable command plus the down workflow, permissions, and
// another organization's environment answering like a missing one.
import { beforeEach, describe, expect, it } from "vitest";
import { STANDARD_WORKFLOW } from "../../worker/environments/engine-work";
import { call } from "../support/http";
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
import { makeEvent, postEvents, sendAccepted } from "../support/events";
import { rpcClient, rpcGet, rpcPost } from "../support/rpc";
import { browser } from "../support/sessions";
import { asRole } from "../support/sql";
import { expectRefusal, statusAndCode } from "../support/refusals";

let place: Workplace;

beforeEach(async () => {
  place = await workplace("envs");
});

const post = async (session: string, name: string, input: unknown) => rpcPost(session, name, input, await browser(session).csrf());

describe("environments.list and environments.get", () => {
  it("shows what the engine reported, to any role", async () => {
    const preview = newEnvId();
    const plain = newEnvId();
    await reportEnvironment(place, preview, {
      branch: "feature/x",
      pull_request: 7,
      started_at: "2030-01-01T00:00:00Z",
      ttl_seconds: 3600,
      preview_urls: ["https://pr-7.preview.example.com/"],
    });
    await reportEnvironment(place, plain, { branch: "main" }, "environment.creating");

    const viewer = await rpcClient(place.sessions.viewer);
    const { items: list } = await viewer.environments.list.query({ orgId: place.orgId });
    expect(list.map((environment) => environment.envId).sort()).toEqual([plain, preview].sort());
    expect(await viewer.environments.get.query({ orgId: place.orgId, envId: preview })).toEqual({
      envId: preview,
      state: "ready",
      repository: place.repository.full,
      branch: "feature/x",
      pullRequest: 7,
      startedAt: "2030-01-01T00:00:00.000Z",
      expiresAt: "2030-01-01T01:00:00.000Z",
      previewUrls: ["https://pr-7.preview.example.com/"],
      lastEventAt: expect.any(String),
      lastHeardAt: expect.any(String),
      createdAt: expect.any(String),
      teardown: null,
      failure: null,
    });
    const first = await viewer.environments.list.query({ orgId: place.orgId, limit: 1 });
    const second = await viewer.environments.list.query({ orgId: place.orgId, limit: 1, cursor: first.nextCursor! });
    expect([...first.items, ...second.items].map((environment) => environment.envId)).toEqual(list.map((environment) => environment.envId));
    expect(second.nextCursor).toBeNull();
    expect((await rpcGet(place.sessions.viewer, "environments.list", { orgId: place.orgId, cursor: "not-a-cursor" })).status).toBe(400);
    expect((await rpcGet(place.sessions.viewer, "environments.list", { orgId: place.orgId, limit: 201 })).status).toBe(400);
  });

  it("says when its engine was last heard from, counting its runs and not only its environment events", async () => {
    const envId = newEnvId();
    await reportEnvironment(place, envId);
    const viewer = await rpcClient(place.sessions.viewer);
    const before = await viewer.environments.get.query({ orgId: place.orgId, envId });
    expect(before.lastHeardAt).toBe(before.lastEventAt);
    const ranAt = new Date(Date.parse(before.lastEventAt) + 60_000).toISOString();
    await sendAccepted(place.engine, [makeEvent({ type: "run.started", envId, occurredAt: ranAt, payload: { runId: `${envId}-run` } })]);
    const after = await viewer.environments.get.query({ orgId: place.orgId, envId });
    expect({ lastEventAt: after.lastEventAt, lastHeardAt: after.lastHeardAt }).toEqual({ lastEventAt: before.lastEventAt, lastHeardAt: ranAt });
    const { items } = await viewer.environments.list.query({ orgId: place.orgId, search: envId });
    expect(items.map((environment) => environment.lastHeardAt)).toEqual([ranAt]);
  });

  it("says why a failed environment failed, in its engine's words, with the workflow run that tells more; a run address that is no web address is refused", async () => {
    const envId = newEnvId();
    await reportEnvironment(place, envId);
    const runUrl = `https://codehost.example/${place.repository.full}/actions/runs/42`;
    await reportEnvironment(place, envId, { reason: "The database migration timed out after 300 s.", workflow_run_url: runUrl }, "environment.failed", 2);
    const viewer = await rpcClient(place.sessions.viewer);
    expect((await viewer.environments.get.query({ orgId: place.orgId, envId })).failure).toEqual({
      reason: "The database migration timed out after 300 s.",
      workflowRunUrl: runUrl,
      at: expect.any(String),
    });
    // Up again: no failure to tell.
    await reportEnvironment(place, envId, {}, "environment.ready", 3);
    expect((await viewer.environments.get.query({ orgId: place.orgId, envId })).failure).toBeNull();
    const refused = await postEvents(place.engine, [
      makeEvent({ type: "environment.failed", envId, sequence: 4, payload: { workflow_run_url: "javascript:alert(1)" } }),
    ]);
    expect(refused.status).toBe(207);
    expect(((await refused.json()) as { outcomes: Array<{ status: string; reason: string }> }).outcomes[0]).toMatchObject({
      status: "rejected",
      reason: expect.stringContaining("workflow_run_url"),
    });
  });

  it("narrows the list to a state and to text in the envId, repository or branch, taking LIKE's wildcards as themselves", async () => {
    const [failing, ready, percent] = [newEnvId(), newEnvId(), newEnvId()];
    await reportEnvironment(place, failing, { branch: "feature/Checkout" }, "environment.failed");
    await reportEnvironment(place, ready, { branch: "main" });
    await reportEnvironment(place, percent, { branch: "100%_done" });
    const viewer = await rpcClient(place.sessions.viewer);
    const ids = async (input: { state?: "failed" | "ready"; search?: string }) =>
      (await viewer.environments.list.query({ orgId: place.orgId, ...input })).items.map((environment) => environment.envId).sort();
    expect(await ids({ state: "failed" })).toEqual([failing]);
    expect(await ids({ search: "checkout" })).toEqual([failing]);
    expect(await ids({ search: ready.slice(-6).toUpperCase() })).toEqual([ready]);
    expect(await ids({ search: place.repository.full })).toEqual([failing, percent, ready].sort());
    expect(await ids({ state: "ready", search: "checkout" })).toEqual([]);
    // % and _ are text here, not wildcards: only the branch that holds them.
    expect(await ids({ search: "%_" })).toEqual([percent]);
    expect((await rpcGet(place.sessions.viewer, "environments.list", { orgId: place.orgId, state: "melting" })).status).toBe(400);
    // Another organization's environments stay out, whatever is searched.
    const other = await workplace("envs-narrow-other");
    await reportEnvironment(other, newEnvId(), { branch: "feature/Checkout" }, "environment.failed");
    expect(await ids({ search: "checkout" })).toEqual([failing]);
  });

  it("answers another organization's environment exactly like a missing one", async () => {
    const other = await workplace("envs-other");
    const theirs = newEnvId();
    await reportEnvironment(other, theirs);
    const answer = await rpcGet(place.sessions.owner, "environments.get", { orgId: place.orgId, envId: theirs });
    const missing = await rpcGet(place.sessions.owner, "environments.get", { orgId: place.orgId, envId: newEnvId() });
    expect(statusAndCode(answer)).toEqual([404, "not_found"]);
    expect(await answer.json()).toEqual(await missing.json());
    expect((await (await rpcClient(place.sessions.owner)).environments.list.query({ orgId: place.orgId })).items).toEqual([]);
  });
});

describe("environments.create", () => {
  it("dispatches the standard workflow on the branch with a new envId and the inputs it declares, and audits", async () => {
    const member = await rpcClient(place.sessions.member);
    const created = await member.environments.create.mutate({
      orgId: place.orgId,
      repository: place.repository.full,
      branch: "feature/login",
      pullRequest: 12,
    });
    expect(created.envId).toMatch(/^pr-12-[0-9a-f]{8}$/);
    expect(created.dispatch).toMatchObject({
      outcome: "dispatched",
      refusal: null,
      workflow: STANDARD_WORKFLOW,
      ref: "feature/login",
      inputs: { command: "up", env_id: created.envId, branch: "feature/login", pull_request: "12" },
      droppedInputs: [],
    });
    expect(await acceptedDispatches(place.repository)).toEqual([
      expect.objectContaining({ workflow: STANDARD_WORKFLOW, ref: "feature/login", inputs: created.dispatch.inputs }),
    ]);
    expect(await storedDispatch(created.dispatch.id)).toMatchObject({ org_id: place.orgId, outcome: "dispatched" });
    expect(await auditEntries(place.orgId, "workflow.dispatch_attempted")).toEqual([
      expect.objectContaining({
        target: created.envId,
        data: expect.objectContaining({ procedure: "environments.create", outcome: "dispatched", dispatchId: created.dispatch.id }),
      }),
    ]);
    // The row comes from the engine's events, not from the request.
    expect((await member.environments.list.query({ orgId: place.orgId })).items).toEqual([]);

    const byBranch = await member.environments.create.mutate({ orgId: place.orgId, repository: place.repository.full, branch: "Feature/Sign-Up!" });
    expect(byBranch.envId).toMatch(/^feature-sign-up-[0-9a-f]{8}$/);
  });

  it("records and answers a dispatch the code host refuses", async () => {
    await putWorkflow(place.repository, "refused.yml");
    await refuseWorkflow(place.repository, 422, "Actions are disabled for this repository", "refused.yml");
    const response = await post(place.sessions.member, "environments.create", {
      orgId: place.orgId,
      repository: place.repository.full,
      branch: "main",
      workflow: "refused.yml",
    });
    expect(response.status).toBe(200);
    const { dispatch } = (
      (await response.json()) as { result: { data: { dispatch: { id: string; outcome: string; refusalStatus: number; refusal: string } } } }
    ).result.data;
    expect(dispatch).toMatchObject({ outcome: "refused", refusalStatus: 422, refusal: expect.stringMatching(/Actions are disabled/) });
    expect(await storedDispatch(dispatch.id)).toMatchObject({ outcome: "refused", refusal_status: 422, workflow: "refused.yml" });
    expect(await auditEntries(place.orgId, "workflow.dispatch_attempted")).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ outcome: "refused" }) }),
    ]);
  });

  it("validates its input and needs environments.create", async () => {
    const valid = { orgId: place.orgId, repository: place.repository.full, branch: "main" };
    for (const input of [
      { ...valid, repository: "no-slash" },
      { ...valid, branch: "" },
      { ...valid, branch: "has space" },
      { ...valid, branch: "b".repeat(256) },
      { ...valid, pullRequest: 0 },
      { ...valid, workflow: "deploy.sh" },
    ]) {
      expect((await post(place.sessions.member, "environments.create", input)).status, JSON.stringify(input)).toBe(400);
    }
    expect(statusAndCode(await post(place.sessions.viewer, "environments.create", valid))).toEqual([403, "forbidden"]);
    expect(await acceptedDispatches(place.repository)).toEqual([]);
  });
});

describe("environments.teardown", () => {
  const claimCommands = () => call("/v1/commands/claim", { method: "POST", token: place.engine });

  it("writes a durable teardown command and dispatches the engine's down workflow; the engine's event confirms it", async () => {
    const envId = newEnvId();
    await reportEnvironment(place, envId, { branch: "release" });
    const client = await rpcClient(place.sessions.member);
    const answer = await client.environments.teardown.mutate({ orgId: place.orgId, envId });
    expect(answer).toMatchObject({
      envId,
      commandId: expect.any(String),
      dispatch: { outcome: "dispatched", workflow: STANDARD_WORKFLOW, ref: "release", inputs: { command: "down", env_id: envId } },
    });
    const { commands } = (await (await claimCommands()).json()) as { commands: Array<{ id: string; kind: string; envId: string }> };
    expect(commands).toEqual([expect.objectContaining({ id: answer.commandId, kind: "teardown", envId })]);
    expect(await auditEntries(place.orgId, "environment.teardown_requested")).toEqual([
      expect.objectContaining({ target: envId, data: { commandId: answer.commandId } }),
    ]);
    expect(await auditEntries(place.orgId, "workflow.dispatch_attempted")).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ procedure: "environments.teardown", command: "down" }) }),
    ]);
    expect((await client.environments.get.query({ orgId: place.orgId, envId })).teardown).toMatchObject({
      commandId: answer.commandId,
      state: "leased",
      confirmed: false,
    });

    await reportEnvironment(place, envId, {}, "environment.torn_down", 2);
    const after = await client.environments.get.query({ orgId: place.orgId, envId });
    expect(after).toMatchObject({ state: "torn_down", teardown: { confirmed: true } });
    await expectRefusal(
      () => post(place.sessions.member, "environments.teardown", { orgId: place.orgId, envId }),
      { status: 409, code: "state_conflict" },
      () => client.environments.get.query({ orgId: place.orgId, envId }),
    );
  });

  it("writes the command even when no workflow can be dispatched (no branch recorded)", async () => {
    const envId = newEnvId();
    await reportEnvironment(place, envId, { pull_request: 3 });
    const answer = await (await rpcClient(place.sessions.member)).environments.teardown.mutate({ orgId: place.orgId, envId });
    expect(answer).toEqual({ envId, commandId: expect.any(String), dispatch: null });
    const stored = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT kind, state FROM runtime_commands WHERE id = $1", [answer.commandId])).rows[0],
    );
    expect(stored).toEqual({ kind: "teardown", state: "waiting" });
  });

  it("answers an unknown and another organization's environment alike, and needs environments.teardown", async () => {
    const other = await workplace("envs-other");
    const theirs = newEnvId();
    await reportEnvironment(other, theirs);
    const answer = await post(place.sessions.owner, "environments.teardown", { orgId: place.orgId, envId: theirs });
    const missing = await post(place.sessions.owner, "environments.teardown", { orgId: place.orgId, envId: newEnvId() });
    expect(statusAndCode(answer)).toEqual([404, "not_found"]);
    expect(await answer.json()).toEqual(await missing.json());

    const envId = newEnvId();
    await reportEnvironment(place, envId);
    expect(statusAndCode(await post(place.sessions.viewer, "environments.teardown", { orgId: place.orgId, envId }))).toEqual([403, "forbidden"]);
    const commands = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT 1 FROM runtime_commands WHERE org_id = ANY($1)", [[place.orgId, other.orgId]])).rows,
    );
    expect(commands).toEqual([]);
  });
});
