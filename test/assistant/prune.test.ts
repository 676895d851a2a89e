// The sweep deletes the website assistant's usage days older than 35 before today (UTC), as the
// maintenance role, which sees only those days; run as `svc cron run sweep` runs it, for its report.
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../worker/index";
import { USAGE_KEPT_DAYS } from "../../worker/assistant/prune";
import { LOCAL_CRON_PATH } from "../../worker/cron-names";
import { quietly } from "../support/logs";
import { ownDatabase, type OwnDatabase } from "../support/own-database";
import { seedPerson } from "../support/sessions";
import { asRole } from "../support/sql";

let own: OwnDatabase;
beforeAll(async () => {
  own = await ownDatabase();
});

/** Each row's age in days before today (UTC), as `role` sees the rows. */
const ages = (role: "superuser" | "maintenance") =>
  asRole(
    role,
    async (client) =>
      (await client.query<{ age: number }>("SELECT (now() AT TIME ZONE 'UTC')::date - day AS age FROM assistant_usage ORDER BY age")).rows.map(
        (row) => row.age,
      ),
    own.database,
  );

describe("the sweep", () => {
  it("deletes the assistant's usage days older than 35, the only ones the maintenance role sees, and keeps the rest", async () => {
    expect(USAGE_KEPT_DAYS).toBe(35);
    const personId = await seedPerson(`usage-${crypto.randomUUID().slice(0, 6)}`, [], own.database);
    await asRole(
      "superuser",
      (client) =>
        client.query("INSERT INTO assistant_usage (person_id, day, requests) SELECT $1, (now() AT TIME ZONE 'UTC')::date - n, 1 FROM unnest($2::int[]) n", [
          personId,
          [0, 1, 35, 36, 400],
        ]),
      own.database,
    );
    expect(await ages("maintenance")).toEqual([36, 400]);
    // Only the day: whose usage it was stays out of the maintenance role's reach.
    await expect(asRole("maintenance", (client) => client.query("SELECT person_id FROM assistant_usage"), own.database)).rejects.toMatchObject({
      code: "42501",
    });
    const secret = "local-cron-secret-for-the-test-0123456789";
    // The sweep's lines (cron.started, each step's count) are not what this test reads: its report is.
    const swept = await quietly(() =>
      worker.fetch!(
        new Request(`http://127.0.0.1:8080${LOCAL_CRON_PATH}?job=sweep`, { method: "POST", headers: { authorization: `Bearer ${secret}` } }) as never,
        { ...env, ...own.bindings, SVC_LOCAL_CRON_SECRET: secret } as never,
        createExecutionContext(),
      ),
    );
    expect(await swept.json()).toMatchObject({ outcome: "ok", report: { assistantUsageDeleted: 2 } });
    expect(await ages("superuser")).toEqual([0, 1, 35]);
  });
});
