// A connection's statements (db/neon.ts) go through the driver's callback form, with a copy of the
// config they are given: drizzle hands the same config to every execution of a prepared query.
import { eq, sql } from "drizzle-orm";
import { inject } from "vitest";
import { afterAll, describe, expect, it } from "vitest";
import { openPool, useBridge } from "../../db/neon";
import { organizations } from "../../db/schema";

const database = inject("database");
useBridge(database.bridge);
const pool = openPool(database.app, "svc_app", 1);
afterAll(() => pool.end());

const withConnection = async <T>(work: (connection: Awaited<ReturnType<typeof pool.connect>>) => Promise<T>): Promise<T> => {
  const connection = await pool.connect();
  try {
    return await work(connection);
  } finally {
    connection.release();
  }
};

describe("a connection's statements", () => {
  it("leave the config they are given as it was, however often it is sent", async () => {
    const config = { text: "SELECT $1::int + 1 AS n", rowMode: "array" };
    const given = structuredClone(config);
    await withConnection(async ({ raw }) => {
      const query = raw.query as unknown as (config: object, params: unknown[]) => Promise<{ rows: unknown[][] }>;
      expect((await query(config, [1])).rows).toEqual([[2]]);
      expect((await query(config, [41])).rows).toEqual([[42]]);
    });
    expect(config).toEqual(given);
  });

  it("answer drizzle's prepared queries with each execution's values", async () => {
    await withConnection(async ({ db }) => {
      const named = db
        .select({ one: sql<number>`1` })
        .from(organizations)
        .where(eq(organizations.slug, sql.placeholder("slug")))
        .prepare("svc_test_prepared_slug");
      expect(await named.execute({ slug: "no-such-organization" })).toEqual([]);
      expect(await named.execute({ slug: "still-none" })).toEqual([]);
    });
  });

  it("answer text with values, several statements, and a refusal with its SQLSTATE", async () => {
    await withConnection(async ({ raw }) => {
      expect((await raw.query<{ n: number }>("SELECT $1::int * 2 AS n", [21])).rows).toEqual([{ n: 42 }]);
      const several = (await raw.query("SELECT 1 AS a; SELECT 2 AS b")) as unknown as Array<{ rows: unknown[] }>;
      expect(several.map((result) => result.rows)).toEqual([[{ a: 1 }], [{ b: 2 }]]);
      await expect(raw.query("SELECT 1 / 0")).rejects.toMatchObject({ code: "22012" });
      expect((await raw.query<{ ok: boolean }>("SELECT true AS ok")).rows).toEqual([{ ok: true }]);
    });
  });
});
