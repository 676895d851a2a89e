import { beforeEach, describe, expect, it } from "vitest";
import { call } from "../support/http";
import { seedOrganization, seedToken } from "../support/seed";
import { asRole } from "../support/sql";
import { beat, claim, elapse, runRow, seedEnvironment, seedRun, type Claimed } from "../support/workloads";
import { statusAndCode } from "../support/refusals";
import { forgetHeldRun, heldRun } from "../../worker/workloads/held-runs";

let orgId: string;
let engineA: string;
let engineB: string;

beforeEach(async () => {
  orgId = (await seedOrganization("work")).id;
  engineA = (await seedToken(orgId, "engine")).token;
  engineB = (await seedToken(orgId, "engine")).token;
  await seedEnvironment(engineA, "env-1");
});

describe("POST /v1/workloads/claim", () => {
  it("moves the oldest requested run to accepted and returns it with its compiled version, a lease and the deadline", async () => {
    const first = await seedRun(orgId, "env-1", { steps: ["first"] });
    const second = await seedRun(orgId, "env-1", { steps: ["second"] });
    const response = await claim(engineA, "env-1");
    expect(response.status).toBe(200);
    const { run } = (await response.json()) as Claimed;
    expect(run).toMatchObject({ id: first, envId: "env-1", version: { number: 1, compiled: { steps: ["first"] } }, lease: { attempt: 1 } });
    expect(Date.parse(run!.lease.expiresAt)).toBeGreaterThan(Date.now());
    expect(Date.parse(run!.deadline)).toBeGreaterThan(Date.parse(run!.lease.expiresAt));
    expect(await runRow(first)).toMatchObject({ state: "accepted", lease_id: run!.lease.id });
    expect(await runRow(second)).toMatchObject({ state: "requested" });
    expect(((await (await claim(engineA, "env-1")).json()) as Claimed).run!.id).toBe(second);
  });

  it("answers a claim retried with its claimId with the run it took, same lease, and takes no second run", async () => {
    const first = await seedRun(orgId, "env-1");
    const second = await seedRun(orgId, "env-1");
    const claimId = crypto.randomUUID();
    const again = () => call("/v1/workloads/claim", { method: "POST", token: engineA, json: { envId: "env-1", claimId } });
    const taken = ((await (await again()).json()) as Claimed).run!;
    expect(taken).toMatchObject({ id: first, lease: { id: claimId, attempt: 1 } });
    // The engine never saw that answer (a dropped connection) and sends the same claim again.
    const retried = await again();
    expect(retried.status).toBe(200);
    expect(((await retried.json()) as Claimed).run).toMatchObject({ id: first, lease: { id: claimId, attempt: 1 } });
    expect(await runRow(second)).toMatchObject({ state: "requested" });
    // The same id from another engine is another claim: it takes the next run, never the first's.
    const other = await call("/v1/workloads/claim", { method: "POST", token: engineB, json: { envId: "env-1", claimId } });
    expect(((await other.json()) as Claimed).run!.id).toBe(second);
    expect((await beat(engineA, first, claimId)).status).toBe(200);
    // A claimId must be a UUID.
    expect((await call("/v1/workloads/claim", { method: "POST", token: engineA, json: { envId: "env-1", claimId: "x" } })).status).toBe(400);
  });

  it("answers 200 with a null run when nothing waits", async () => {
    const response = await claim(engineA, "env-1");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ run: null });
  });

  it("answers 404 for an environment not in the caller's organization, the same as a missing one", async () => {
    const other = (await seedOrganization("work-other")).id;
    const otherToken = (await seedToken(other, "engine")).token;
    await seedEnvironment(otherToken, "theirs");
    await seedRun(other, "theirs");
    const foreign = await claim(engineA, "theirs");
    const missing = await claim(engineA, "nowhere");
    expect([foreign.status, missing.status]).toEqual([404, 404]);
    expect(await foreign.json()).toEqual(await missing.json());
  });

  it("answers 400 to a body that is not JSON or has no envId, 401 without a token, 403 when suspended", async () => {
    expect((await call("/v1/workloads/claim", { method: "POST", token: engineA, body: "nope" })).status).toBe(400);
    expect((await call("/v1/workloads/claim", { method: "POST", token: engineA, json: {} })).status).toBe(400);
    expect((await call("/v1/workloads/claim", { method: "POST", json: { envId: "env-1" } })).status).toBe(401);
    await asRole("superuser", (client) => client.query("UPDATE organizations SET suspended_at = now() WHERE id = $1", [orgId]));
    const suspended = await claim(engineA, "env-1");
    expect(statusAndCode(suspended)).toEqual([403, "organization_suspended"]);
    expect(await suspended.json()).toMatchObject({ retryAfterSeconds: expect.any(Number) });
  });

  it("takes nothing for a claim it refuses: a CLI token's, a revoked token's, a suspended organization's", async () => {
    // The token is admitted in the very round trip that claims (worker/workloads/object-claim.ts). Each
    // token is used once first, so the isolate knows its organization and the claim goes straight to the
    // environment's object, where the refusal and the claim are one statement's business.
    const cli = (await seedToken(orgId, "cli")).token;
    const revoked = await seedToken(orgId, "engine");
    expect(statusAndCode(await claim(cli, "env-1"))).toEqual([401, "unauthenticated"]);
    expect(await (await claim(revoked.token, "env-1")).json()).toEqual({ run: null });
    await asRole("superuser", (client) => client.query("UPDATE tokens SET revoked_at = now() WHERE id = $1", [revoked.id]));
    const runId = await seedRun(orgId, "env-1");
    expect(statusAndCode(await claim(cli, "env-1"))).toEqual([401, "unauthenticated"]);
    expect(statusAndCode(await claim(revoked.token, "env-1"))).toEqual([401, "unauthenticated"]);
    await asRole("superuser", (client) => client.query("UPDATE organizations SET suspended_at = now() WHERE id = $1", [orgId]));
    expect(statusAndCode(await claim(engineA, "env-1"))).toEqual([403, "organization_suspended"]);
    expect(await runRow(runId)).toMatchObject({ state: "requested", lease_id: null, holder_token_id: null, claims: 0 });
  });

  it("gives each run to exactly one of two engines claiming at once", async () => {
    const runs = [await seedRun(orgId, "env-1"), await seedRun(orgId, "env-1")];
    const [a, b] = (await Promise.all([claim(engineA, "env-1"), claim(engineB, "env-1")].map(async (r) => (await r).json()))) as Claimed[];
    expect([a!.run!.id, b!.run!.id].sort()).toEqual([...runs].sort());

    const only = await seedRun(orgId, "env-1");
    const results = (await Promise.all([claim(engineA, "env-1"), claim(engineB, "env-1")].map(async (r) => (await r).json()))) as Claimed[];
    expect(results.map((result) => result.run?.id ?? null).sort()).toEqual([only, null].sort());
  });

  it("does not take over a run whose lease is still live", async () => {
    await seedRun(orgId, "env-1");
    await claim(engineA, "env-1");
    expect(await (await claim(engineB, "env-1")).json()).toEqual({ run: null });
  });
});

describe("leases: heartbeat and takeover", () => {
  it("extends the lease and the deadline for the holder", async () => {
    const runId = await seedRun(orgId, "env-1");
    const { run } = (await (await claim(engineA, "env-1")).json()) as Claimed;
    await asRole("superuser", (client) =>
      client.query("UPDATE workload_runs SET lease_expires_at = now() + interval '5 seconds', deadline_at = now() + interval '10 seconds' WHERE id = $1", [
        runId,
      ]),
    );
    const response = await beat(engineA, runId, run!.lease.id);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { runId: string; lease: { id: string; expiresAt: string }; deadline: string };
    expect(body).toMatchObject({ runId, lease: { id: run!.lease.id } });
    expect(Date.parse(body.lease.expiresAt)).toBeGreaterThan(Date.now() + 30_000);
    expect(Date.parse(body.deadline)).toBeGreaterThan(Date.now() + 60_000);
  });

  it("lets the next engine polling the environment take over an expired lease; the old holder then gets 409", async () => {
    const runId = await seedRun(orgId, "env-1");
    const first = ((await (await claim(engineA, "env-1")).json()) as Claimed).run!;
    await elapse(runId, { lease: true });
    const second = ((await (await claim(engineB, "env-1")).json()) as Claimed).run!;
    expect(second).toMatchObject({ id: runId, lease: { attempt: 2 } });
    expect(second.lease.id).not.toBe(first.lease.id);

    const late = await beat(engineA, runId, first.lease.id);
    expect([late.status, late.headers.get("x-svc-error-code")]).toEqual([409, "lease_not_held"]);
    expect(await late.json()).toEqual({ error: expect.stringMatching(/no longer holds/) });
    expect((await beat(engineB, runId, second.lease.id)).status).toBe(200);
  });

  it("answers 404 for an unknown or another organization's run, 400 without a lease id", async () => {
    const other = (await seedOrganization("work-other")).id;
    const otherToken = (await seedToken(other, "engine")).token;
    await seedEnvironment(otherToken, "theirs");
    const theirRun = await seedRun(other, "theirs");
    const theirLease = ((await (await claim(otherToken, "theirs")).json()) as Claimed).run!.lease.id;
    expect(statusAndCode(await beat(engineA, theirRun, theirLease))).toEqual([404, "not_found"]);
    expect(statusAndCode(await beat(engineA, crypto.randomUUID(), theirLease))).toEqual([404, "not_found"]);
    expect(statusAndCode(await beat(engineA, "not-a-uuid", theirLease))).toEqual([404, "not_found"]);
    expect((await call(`/v1/workloads/runs/${theirRun}/heartbeat`, { method: "POST", token: engineA, json: {} })).status).toBe(400);
  });

  // A run this isolate handed out is heartbeated through its environment's object; one another isolate
  // handed out (forgotten here, as if so), from the Worker (worker/workloads/held-runs.ts). Both answer alike.
  const ways = [
    ["through the environment's object", (_runId: string) => {}],
    ["from the Worker", (runId: string) => forgetHeldRun(runId)],
  ] as const;

  it.each(ways)("answers a heartbeat %s alike: 200 for the holder, 409 for a lease it lost, 404 for another run", async (_way, handedOutElsewhere) => {
    const runId = await seedRun(orgId, "env-1");
    const first = ((await (await claim(engineA, "env-1")).json()) as Claimed).run!;
    expect(heldRun(runId)).toEqual({ orgId, envId: "env-1" });
    handedOutElsewhere(runId);
    const held = await beat(engineA, runId, first.lease.id);
    expect(held.status).toBe(200);
    expect(await held.json()).toEqual({ runId, lease: { id: first.lease.id, expiresAt: expect.any(String) }, deadline: expect.any(String) });
    await elapse(runId, { lease: true });
    const second = ((await (await claim(engineB, "env-1")).json()) as Claimed).run!;
    handedOutElsewhere(runId);
    expect(statusAndCode(await beat(engineA, runId, first.lease.id))).toEqual([409, "lease_not_held"]);
    expect((await beat(engineB, runId, second.lease.id)).status).toBe(200);
    expect(statusAndCode(await beat(engineB, crypto.randomUUID(), second.lease.id))).toEqual([404, "not_found"]);
  });

  it.each(ways)("refuses a heartbeat %s with 403 while the organization is suspended", async (_way, handedOutElsewhere) => {
    const runId = await seedRun(orgId, "env-1");
    const { run } = (await (await claim(engineA, "env-1")).json()) as Claimed;
    handedOutElsewhere(runId);
    await asRole("superuser", (client) => client.query("UPDATE organizations SET suspended_at = now() WHERE id = $1", [orgId]));
    expect(statusAndCode(await beat(engineA, runId, run!.lease.id))).toEqual([403, "organization_suspended"]);
  });

  it.each(ways)(
    "extends nothing for a heartbeat it refuses %s: a CLI token's, a revoked token's, a suspended organization's",
    async (_way, handedOutElsewhere) => {
      const runId = await seedRun(orgId, "env-1");
      const holder = await seedToken(orgId, "engine");
      const { run } = (await (await claim(holder.token, "env-1")).json()) as Claimed;
      handedOutElsewhere(runId);
      const before = await runRow(runId);
      const cli = (await seedToken(orgId, "cli")).token;
      expect(statusAndCode(await beat(cli, runId, run!.lease.id))).toEqual([401, "unauthenticated"]);
      await asRole("superuser", (client) => client.query("UPDATE tokens SET revoked_at = now() WHERE id = $1", [holder.id]));
      expect(statusAndCode(await beat(holder.token, runId, run!.lease.id))).toEqual([401, "unauthenticated"]);
      await asRole("superuser", (client) => client.query("UPDATE organizations SET suspended_at = now() WHERE id = $1", [orgId]));
      expect(statusAndCode(await beat(engineA, runId, run!.lease.id))).toEqual([403, "organization_suspended"]);
      expect(await runRow(runId)).toMatchObject({ lease_expires_at: before.lease_expires_at, deadline_at: before.deadline_at });
    },
  );
});
