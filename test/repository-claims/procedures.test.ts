// claims.list / claims.revoke and workloads.runs: what the console shows of repository claims and
// workload runs, another organization's answered like a missing one.
import { beforeEach, describe, expect, it } from "vitest";
import { claim as claimRepository } from "../support/codehost";
import { newEnvId, reportEnvironment, workplace, type Workplace } from "../support/engine-work";
import { rpcClient } from "../support/rpc";
import { seedToken } from "../support/seed";
import { asRole } from "../support/sql";
import { claim, elapse, fireAlarm, seedRun, type Claimed } from "../support/workloads";

let place: Workplace;

beforeEach(async () => {
  place = await workplace("console-lists");
});

const rpcError = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: { data?: { httpStatus?: number } }) => error.data?.httpStatus,
  );

describe("claims", () => {
  it("lists the organization's claims with the audience, and revokes one: its minted tokens die, audited once", async () => {
    const cli = (await seedToken(place.orgId, "cli", ["tokens.manage"])).token;
    const created = (await (await claimRepository(cli, place.repository)).json()) as { id: string };
    const owner = await rpcClient(place.sessions.owner);
    const listed = await owner.claims.list.query({ orgId: place.orgId });
    expect(listed.audience).toMatch(/^https?:\/\//);
    expect(listed.claims).toEqual([expect.objectContaining({ id: created.id, repository: place.repository.full, revokedAt: null })]);

    expect(await owner.claims.revoke.mutate({ orgId: place.orgId, claimId: created.id })).toEqual({
      revoked: true,
      repository: place.repository.full,
      alreadyRevoked: false,
      tokensRevoked: 0,
    });
    expect(await owner.claims.revoke.mutate({ orgId: place.orgId, claimId: created.id })).toMatchObject({ alreadyRevoked: true });
    const audited = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT actor_label FROM audit_log WHERE org_id = $1 AND action = 'repository_claim.revoked'", [place.orgId])).rows,
    );
    expect(audited).toHaveLength(1);
  });

  it("answers another organization's claim like a missing one, and needs tokens.manage", async () => {
    const other = await workplace("console-lists-other");
    const cli = (await seedToken(other.orgId, "cli", ["tokens.manage"])).token;
    const theirs = (await (await claimRepository(cli, other.repository)).json()) as { id: string };
    const owner = await rpcClient(place.sessions.owner);
    expect(await rpcError(owner.claims.revoke.mutate({ orgId: place.orgId, claimId: theirs.id }))).toBe(404);
    expect((await owner.claims.list.query({ orgId: place.orgId })).claims).toEqual([]);
    expect(await rpcError((await rpcClient(place.sessions.member)).claims.list.query({ orgId: place.orgId }))).toBe(403);
  });
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
