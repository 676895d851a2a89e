// In workerd, once the driver is loaded, its process.nextTick callbacks are promise jobs (db/next-tick.ts):
// workerd's own queueMicrotask keeps each callback until a full collection (bench/README.md).
import { inject } from "vitest";
import { afterAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { openPool, useBridge } from "../../db/neon";

const database = inject("database");
useBridge(database.bridge);
const pool = openPool(database.app, "svc_app", 1);
afterAll(() => pool.end());

describe("the driver's process.nextTick in workerd", () => {
  it("is the promise job, and the driver works through it", async () => {
    const connection = await pool.connect();
    try {
      const { rows } = await connection.db.execute<{ one: number }>(sql`SELECT 1 AS one`);
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      connection.release();
    }
    expect((globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent).toBe("Cloudflare-Workers");
    const installed = Object.getOwnPropertySymbols(process.nextTick).map((symbol) => symbol.description);
    expect(installed).toContain("svc.nextTickAsPromiseJob");
    const order: string[] = [];
    process.nextTick((value: string) => order.push(value), "tick");
    order.push("sync");
    await Promise.resolve();
    expect(order).toEqual(["sync", "tick"]);
  });
});
