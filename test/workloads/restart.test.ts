// An environment's Durable Object restarted while claims are under way (a deploy, an eviction, an
// object reset by the platform): leases stay fenced. The claims in flight fail or finish; the engines
// retry each with its claimId; no run is handed to two engines, and none is taken without an engine
// knowing it.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call } from "../support/http";
import { seedOrganization, seedToken } from "../support/seed";
import { asRole } from "../support/sql";
import { environmentObject } from "../../worker/objects";
import { beat, type Claimed, seedEnvironment, seedRun } from "../support/workloads";

describe("an environment object restarted in the middle of claims", () => {
  it("hands each run to one engine only, and a retried claim takes no second run", async () => {
    const orgId = (await seedOrganization("restart")).id;
    const engines = [(await seedToken(orgId, "engine")).token, (await seedToken(orgId, "engine")).token, (await seedToken(orgId, "engine")).token];
    await seedEnvironment(engines[0]!, "env-r");
    const runs: string[] = [];
    for (let i = 0; i < 9; i++) runs.push(await seedRun(orgId, "env-r"));

    const handedTo = new Map<string, number[]>();
    const failures: string[] = [];
    const claimOnce = async (engine: number) => {
      const claimId = crypto.randomUUID();
      for (let tries = 0; tries < 10; tries++) {
        const response = await call("/v1/workloads/claim", { method: "POST", token: engines[engine]!, json: { envId: "env-r", claimId } });
        if (response.status === 200) return ((await response.json()) as Claimed).run;
        failures.push(`${response.status} ${response.headers.get("x-svc-error-code")}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error("a claim never answered 200");
    };
    const engine = async (n: number) => {
      for (let i = 0; i < 3; i++) {
        const run = await claimOnce(n);
        if (!run) return;
        handedTo.set(run.id, [...(handedTo.get(run.id) ?? []), n]);
        expect((await beat(engines[n]!, run.id, run.lease.id)).status).toBe(200);
      }
    };
    const working = Promise.all([0, 1, 2].map(engine));
    // The object goes away while the first claims are in flight.
    await new Promise((resolve) => setTimeout(resolve, 5));
    // ctx.abort() resets this object as the platform would (abortAllDurableObjects would reset the pool's own too).
    await runInDurableObject(environmentObject(env, orgId, "env-r"), (_object, state) => state.abort("restarted by the test")).catch(() => {});
    await working;

    expect([...handedTo.values()].filter((holders) => holders.length > 1)).toEqual([]);
    expect([...handedTo.keys()].sort()).toEqual([...runs].sort());
    const { rows } = await asRole("superuser", (client) =>
      client.query<{ id: string; state: string }>("SELECT id, state FROM workload_runs WHERE org_id = $1 ORDER BY id", [orgId]),
    );
    expect(rows).toEqual([...runs].sort().map((id) => ({ id, state: "accepted" })));
    // What failed on the way failed as a retry-safe server failure, never as a refusal.
    for (const failure of failures) expect(failure).toMatch(/^500 /);
  });
});
