// Every transaction takes its role (db/roles.ts): the deployment logins are members that need not
// inherit it, and a pooler may run each transaction on another server connection, so a role taken
// once for the session would be lost, or left for someone else's transaction.
import { sql } from "drizzle-orm";
import { describe, expect, inject, it } from "vitest";
import { useBridge, withDb } from "../../db/neon";
import { inTransaction } from "../../db/transaction";
import { appPool } from "../support/sql";

useBridge(inject("database").bridge);

const actingAs = (rows: Array<{ role: unknown }>) => rows.map((row) => row.role);

describe("the role each transaction takes", () => {
  it("a statement sent alone runs in a transaction of its own that takes the role; so does each BEGIN", async () => {
    const seen = await withDb(inject("database").logins.maintenance, "svc_maintenance", async (db) => {
      const alone = (await db.execute<{ role: string }>(sql`SELECT current_user AS role`)).rows;
      await db.execute(sql`BEGIN`);
      const inside = (await db.execute<{ role: string }>(sql`SELECT current_user AS role`)).rows;
      await db.execute(sql`COMMIT`);
      const after = (await db.execute<{ role: string }>(sql`SELECT current_user AS role`)).rows;
      return [...actingAs(alone), ...actingAs(inside), ...actingAs(after)];
    });
    expect(seen).toEqual(["svc_maintenance", "svc_maintenance", "svc_maintenance"]);
  });

  it("without a role taken, the same login may do nothing of the role's", async () => {
    await expect(withDb(inject("database").logins.maintenance, null, (db) => db.execute(sql`SELECT count(*) FROM events_default`))).rejects.toMatchObject({
      cause: { code: "42501" },
    });
  });

  it("a pool's transactions act as its role, whichever server connection runs them", async () => {
    const pool = appPool({ ...inject("database"), app: inject("database").logins.app });
    try {
      const roles = await Promise.all(
        Array.from({ length: 6 }, () =>
          inTransaction(pool.connect, {}, async (tx) => (await tx.execute<{ role: string }>(sql`SELECT current_user AS role`)).rows[0]!.role),
        ),
      );
      expect(new Set(roles)).toEqual(new Set(["svc_app"]));
    } finally {
      await pool.end();
    }
  });
});
