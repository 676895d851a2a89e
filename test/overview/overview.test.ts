// The console's first pages as a member reads them: getting started turning to "connected" when an
// engine reports, and the overview of what needs attention, held to the organization and to the role.
import { beforeAll, describe, expect, it } from "vitest";
import { newEnvId, reportEnvironment, workplace, type Workplace } from "../support/engine-work";
import { makeEvent, sendAccepted } from "../support/events";
import { rpcClient } from "../support/rpc";
import { seedOrganization, seedToken } from "../support/seed";
import { seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";
import { seedRun } from "../support/workloads";

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
    expect(summary.workloadRuns).toMatchObject({ waiting: 1, held: 0, oldest: [expect.objectContaining({ envId, state: "requested" })] });
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
    expect(summary.environments).toEqual({ byState: [{ state: "queued", count: 1 }], expiringSoon: [] });
    expect(summary.failures).toEqual({ runs: [], verdicts: [] });
    expect(summary.workloadRuns).toEqual({ waiting: 0, held: 0, oldest: [] });
    expect(summary.spend).toEqual([]);
    await expect(client.overview.summary.query({ orgId: place.orgId })).rejects.toMatchObject({ data: { httpStatus: 404 } });
  });
});
