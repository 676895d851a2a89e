// Projections that wait for the environment object's turn are applied together
// (durable-objects/coalesce.ts), and each batch still gets its own answer.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Coalescer } from "../../durable-objects/coalesce";
import { environmentObject } from "../../worker/objects";
import { asRole } from "../support/sql";
import { seedOrganization } from "../support/seed";

describe("the coalescer", () => {
  it("serves the calls that arrive while the first waits for its turn in one go, each its own answer", async () => {
    const served: number[][] = [];
    let turn!: () => void;
    const turnComes = new Promise<void>((resolve) => (turn = resolve));
    const coalescer = new Coalescer<number, string>(
      (drain) => void turnComes.then(drain),
      async (inputs) => {
        served.push(inputs);
        return inputs.map((input) => `answer ${input}`);
      },
    );
    const answers = Promise.all([1, 2, 3].map((input) => coalescer.call(input)));
    turn();
    expect(await answers).toEqual(["answer 1", "answer 2", "answer 3"]);
    expect(served).toEqual([[1, 2, 3]]);
    // Once a drain has taken the calls, a new one asks for a turn of its own.
    expect(await coalescer.call(4)).toBe("answer 4");
    expect(served).toEqual([[1, 2, 3], [4]]);
  });

  it("fails every call of a drain that fails, and serves the next ones", async () => {
    let fail = true;
    const coalescer = new Coalescer<number, number>(
      (drain) => void Promise.resolve().then(drain),
      async (inputs) => {
        if (fail) throw new Error("the database went away");
        return inputs;
      },
    );
    const failed = await Promise.allSettled([coalescer.call(1), coalescer.call(2)]);
    expect(failed.map((result) => result.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    expect(await coalescer.call(3)).toBe(3);
  });
});

describe("concurrent projections of one environment", () => {
  it("give each batch the notes of its own events, by its own refs, and leave the highest sequence", async () => {
    const orgId = (await seedOrganization("coalesce")).id;
    const object = environmentObject(env, orgId, "env-c");
    const event = (ref: number, sequence: number, repository: string | undefined) => ({
      ref, type: "environment.ready", sequence, at: Date.now(), payload: repository ? { repository, branch: "main" } : {},
    });
    const [first, second, third] = await Promise.all([
      object.project(orgId, "env-c", [event(0, 1, "acme/shop"), event(1, 2, "acme/shop")]),
      object.project(orgId, "env-c", [event(0, 5, "acme/shop")]),
      // Sequence 3 arrives beside 5: whichever way the batches meet, it does not win. A state the
      // projection does not know is noted whichever way, under this batch's ref.
      object.project(orgId, "env-c", [event(7, 3, "acme/shop"), { ...event(9, 4, "acme/shop"), type: "environment.exploded" }]),
    ]);
    expect(first.every(({ ref }) => ref === 0 || ref === 1)).toBe(true);
    expect(second).toEqual([]);
    expect(third.map(({ ref }) => ref)).toContain(9);
    expect(third.every(({ ref }) => ref === 7 || ref === 9)).toBe(true);
    const row = await asRole("superuser", async (client) =>
      (await client.query("SELECT last_sequence::int AS last_sequence FROM environments WHERE org_id = $1 AND env_id = 'env-c'", [orgId])).rows[0]);
    expect(row).toEqual({ last_sequence: 5 });
  });
});
