// Concurrent projections of one environment, through its real object: each batch gets its own
// answer (the coalescer alone is in coalesce.node.ts).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { askEnvironment, environmentObject } from "../../worker/objects";
import { asRole } from "../support/sql";
import { seedOrganization } from "../support/seed";

describe("concurrent projections of one environment", () => {
  it("give each batch the notes of its own events, by its own refs, and leave the highest sequence", async () => {
    const orgId = (await seedOrganization("coalesce")).id;
    const object = environmentObject(env, orgId, "env-c");
    const event = (ref: number, sequence: number, repository: string | undefined) => ({
      ref,
      type: "environment.ready",
      sequence,
      at: Date.now(),
      payload: repository ? { repository, branch: "main" } : {},
    });
    const [first, second, third] = await Promise.all([
      askEnvironment(() => object.project(orgId, "env-c", [event(0, 1, "acme/shop"), event(1, 2, "acme/shop")])),
      askEnvironment(() => object.project(orgId, "env-c", [event(0, 5, "acme/shop")])),
      // Sequence 3 arrives beside 5: whichever way the batches meet, it does not win. A state the
      // projection does not know is noted whichever way, under this batch's ref.
      askEnvironment(() => object.project(orgId, "env-c", [event(7, 3, "acme/shop"), { ...event(9, 4, "acme/shop"), type: "environment.exploded" }])),
    ]);
    expect(first.every(({ ref }) => ref === 0 || ref === 1)).toBe(true);
    expect(second).toEqual([]);
    expect(third.map(({ ref }) => ref)).toContain(9);
    expect(third.every(({ ref }) => ref === 7 || ref === 9)).toBe(true);
    const row = await asRole(
      "superuser",
      async (client) =>
        (await client.query("SELECT last_sequence::int AS last_sequence FROM environments WHERE org_id = $1 AND env_id = 'env-c'", [orgId])).rows[0],
    );
    expect(row).toEqual({ last_sequence: 5 });
  });
});
