// workloads.runs: what the console shows of workload runs (state, lease, abandon reason), newest
// first, paged, never another organization's.
import { beforeEach, describe, expect, it } from "vitest";
import { newEnvId, reportEnvironment, workplace, type Workplace } from "../support/engine-work";
import { rpcClient } from "../support/rpc";
import { claim, elapse, fireAlarm, seedRun, type Claimed } from "../support/workloads";

let place: Workplace;

beforeEach(async () => {
  place = await workplace("console-lists");
});

describe("workloads.runs", () => {
  it("shows each run's state, lease and abandon reason, newest first, by environment, paged", async () => {
    const envId = newEnvId();
    await reportEnvironment(place, envId);
    const first = await seedRun(place.orgId, envId);
    const second = await seedRun(place.orgId, envId);
    // An engine takes the first; the second is never claimed and passes its deadline.
    const claimed = (await (await claim(place.engine, envId)).json()) as Claimed;
    expect(claimed.run!.id).toBe(first);
    await elapse(second, { deadline: true });
    await fireAlarm(place.orgId, envId);

    const viewer = await rpcClient(place.sessions.viewer);
    const { items: runs } = await viewer.workloads.runs.query({ orgId: place.orgId, envId });
    expect(runs.map((run) => run.id)).toEqual([second, first]);
    expect(runs[0]).toMatchObject({ state: "abandoned", abandonReason: "never_claimed", lease: { held: false } });
    expect(runs[1]).toMatchObject({ state: "accepted", abandonReason: null, claims: 1, lease: { held: true, expiresAt: expect.any(String) } });
    expect(JSON.stringify(runs)).not.toContain(claimed.run!.lease.id);

    const page = await viewer.workloads.runs.query({ orgId: place.orgId, envId, limit: 1 });
    expect(page.items.map((run) => run.id)).toEqual([second]);
    const next = await viewer.workloads.runs.query({ orgId: place.orgId, envId, limit: 1, cursor: page.nextCursor! });
    expect(next).toEqual({ items: [expect.objectContaining({ id: first })], nextCursor: null });
    expect(await viewer.workloads.runs.query({ orgId: place.orgId, envId: "elsewhere" })).toEqual({ items: [], nextCursor: null });
  });

  it("never shows another organization's runs", async () => {
    const other = await workplace("console-lists-runs");
    const envId = newEnvId();
    await reportEnvironment(other, envId);
    await seedRun(other.orgId, envId);
    expect(await (await rpcClient(place.sessions.owner)).workloads.runs.query({ orgId: place.orgId })).toEqual({ items: [], nextCursor: null });
  });
});
