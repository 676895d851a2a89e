// The console's first pages as a member reads them: getting started turning to "connected" when an
// engine reports, and the overview of what needs attention, held to the organization and to the role.
import { beforeAll, describe, expect, it } from "vitest";
import { newEnvId, reportEnvironment, workplace, type Workplace } from "../support/engine-work";
import { isoAgo, makeEvent, sendAccepted } from "../support/events";
import { rpcClient } from "../support/rpc";
import { seedOrganization, seedToken } from "../support/seed";
import { seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";
import { claim, elapse, seedRun } from "../support/workloads";

let place: Workplace;
let envId: string;

beforeAll(async () => {
  place = await workplace("overview");
  envId = newEnvId();
});

const send = sendAccepted;

describe("overview.gettingStarted", () => {
  it("shows a fresh organization's steps not done, and the address its workflow reports to", async () => {
    const { id: orgId } = await seedOrganization("fresh");
    const owner = await rpcClient(await seedSession(await seedPerson(`fresh-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "owner" }])));
    const started = await owner.overview.gettingStarted.query({ orgId });
    expect(started).toMatchObject({
      workflowFile: "control-plane.yml",
      installations: [],
      claims: [],
      connected: null,
      steps: { installed: false, workflowAdded: false, identity: false, reported: false },
    });
    expect(started.controlPlaneUrl).toMatch(/^https?:\/\/[^/]+$/);
    expect(started.workflowText).toContain(`SVC_CONTROL_PLANE: ${started.controlPlaneUrl}\n`);
  });

  it("turns to connected with the environment once an engine token posts an environment event", async () => {
    const owner = await rpcClient(place.sessions.owner);
    const before = await owner.overview.gettingStarted.query({ orgId: place.orgId });
    expect(before.steps).toEqual({ installed: true, workflowAdded: false, identity: true, reported: false });
    expect(before.installations).toEqual([expect.objectContaining({ account: place.repository.owner, suspended: false })]);

    await reportEnvironment(place, envId, { branch: "main", started_at: new Date().toISOString(), ttl_seconds: 3600 });
    const after = await owner.overview.gettingStarted.query({ orgId: place.orgId });
    expect(after.connected).toMatchObject({ envId, state: "ready", repository: place.repository.full });
    expect(after.steps).toEqual({ installed: true, workflowAdded: true, identity: true, reported: true });
  });
});

describe("overview.summary", () => {
  beforeAll(async () => {
    await send(place.engine, [
      makeEvent({ type: "run.started", envId, payload: { runId: `${envId}-r1`, name: "checkout suite" } }),
      makeEvent({ type: "run.finished", envId, payload: { runId: `${envId}-r1`, outcome: "failed" } }),
      makeEvent({ type: "verdict.recorded", envId, payload: { runId: `${envId}-r1`, name: "login", verdict: "fail", detail: "500 on /login" } }),
      makeEvent({ type: "verdict.recorded", envId, payload: { runId: `${envId}-r1`, name: "search", verdict: "pass" } }),
    ]);
    await seedRun(place.orgId, envId);
    await asRole("superuser", (client) =>
      client.query("INSERT INTO provider_budgets (org_id, provider, monthly_cap_micros) VALUES ($1, 'chat-provider', 25000000)", [place.orgId]),
    );
  });

  it("shows the owner environments by state and expiring soon, the failed run and verdict, the waiting run, spend and plan", async () => {
    const summary = await (await rpcClient(place.sessions.owner)).overview.summary.query({ orgId: place.orgId });
    expect(summary.environments.byState).toEqual([{ state: "ready", count: 1 }]);
    expect(summary.environments.expiringSoon).toEqual([expect.objectContaining({ envId, state: "ready" })]);
    expect(summary.failures.runs).toEqual([expect.objectContaining({ runId: `${envId}-r1`, envId, outcome: "failed" })]);
    expect(summary.failures.verdicts).toEqual([expect.objectContaining({ runId: `${envId}-r1`, envId, name: "login", detail: "500 on /login" })]);
    expect(summary.workloadRuns).toMatchObject({
      waiting: 1,
      held: 0,
      lapsed: 0,
      oldest: [expect.objectContaining({ envId, state: "requested", held: false })],
    });
    expect(summary.spend).toEqual([expect.objectContaining({ provider: "chat-provider", monthlyCapUsd: 25, spentUsd: 0 })]);
    expect(summary).toMatchObject({ plan: "free", suspended: false, deletion: null });
  });

  it("gives a viewer only what the role may open: no spend, no deletion", async () => {
    const summary = await (await rpcClient(place.sessions.viewer)).overview.summary.query({ orgId: place.orgId });
    expect(summary.failures.verdicts).toHaveLength(1);
    expect(summary.workloadRuns?.waiting).toBe(1);
    expect(summary.spend).toBeNull();
    expect(summary.deletion).toBeNull();
    const started = await (await rpcClient(place.sessions.viewer)).overview.gettingStarted.query({ orgId: place.orgId });
    expect(started.claims).toBeNull();
    expect(started.connected?.envId).toBe(envId);
  });

  it("shows another organization none of it, and refuses its members this one's", async () => {
    const { id: orgId } = await seedOrganization("other");
    const stranger = await seedSession(await seedPerson(`other-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "owner" }]));
    // The other organization's own engine reports an environment of the same name: still not this one's rows.
    await send((await seedToken(orgId, "engine")).token, [
      makeEvent({ type: "environment.queued", envId, sequence: 1, payload: { repository: "other/shop" } }),
    ]);
    const client = await rpcClient(stranger);
    const summary = await client.overview.summary.query({ orgId });
    expect(summary.environments).toEqual({ byState: [{ state: "queued", count: 1 }], failed: [], expiringSoon: [] });
    expect(summary.failures).toEqual({ runs: [], verdicts: [] });
    expect(summary.workloadRuns).toEqual({ waiting: 0, held: 0, lapsed: 0, oldest: [] });
    expect(summary.spend).toEqual([]);
    await expect(client.overview.summary.query({ orgId: place.orgId })).rejects.toMatchObject({ data: { httpStatus: 404 } });
  });
});

describe("overview.summary: what is broken now", () => {
  it("names the failed environments, lists failures by when they failed without a torn-down environment's, says which is its environment's latest, and tells a lapsed lease from a held one", async () => {
    const now = await workplace("broken-now");
    const [failing, gone, healthy] = [newEnvId(), newEnvId(), newEnvId()];
    await reportEnvironment(now, failing, { branch: "feature" }, "environment.failed");
    await reportEnvironment(now, healthy);
    await reportEnvironment(now, gone);
    const failedRun = (env: string, runId: string, minutesAgo: number) => [
      makeEvent({ type: "run.started", envId: env, occurredAt: isoAgo(minutesAgo * 60_000 + 1000), payload: { runId } }),
      makeEvent({ type: "run.finished", envId: env, occurredAt: isoAgo(minutesAgo * 60_000), payload: { runId, outcome: "failed" } }),
    ];
    // The run that failed a moment ago is recorded first; one that failed days ago arrives after it (a
    // late engine): the overview still puts the recent one first.
    await send(now.engine, failedRun(healthy, "just-now", 1));
    await send(now.engine, failedRun(healthy, "days-ago", 60 * 24 * 4));
    await send(now.engine, [
      ...failedRun(gone, "on-gone", 2),
      makeEvent({ type: "verdict.recorded", envId: gone, payload: { runId: "on-gone", name: "login", verdict: "fail" } }),
    ]);
    await reportEnvironment(now, gone, {}, "environment.torn_down", 2);

    const [held, lapsed] = [await seedRun(now.orgId, healthy), await seedRun(now.orgId, healthy)];
    for (const _ of [held, lapsed]) expect((await claim(now.engine, healthy)).status).toBe(200);
    await elapse(lapsed, { lease: true });

    const summary = await (await rpcClient(now.sessions.viewer)).overview.summary.query({ orgId: now.orgId });
    expect(summary.environments.failed).toEqual([{ envId: failing, repository: now.repository.full, branch: "feature", lastEventAt: expect.any(String) }]);
    // Only the run no later run followed on its environment is failing now (the band "Needs attention").
    expect(summary.failures.runs.map((run) => [run.runId, run.latest])).toEqual([
      ["just-now", true],
      ["days-ago", false],
    ]);
    expect(summary.failures.verdicts).toEqual([]);
    expect(summary.workloadRuns).toMatchObject({ waiting: 0, held: 1, lapsed: 1 });
    expect(Object.fromEntries(summary.workloadRuns!.oldest.map((run) => [run.id, run.held]))).toEqual({ [held]: true, [lapsed]: false });
  });
});
