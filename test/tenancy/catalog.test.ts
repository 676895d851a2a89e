// The database catalog itself: a table with an organization column that is not locked down fails here.
import { describe, expect, it } from "vitest";
import { asRole } from "../support/sql";

describe("catalog", () => {
  it("forces row-level security on every table with an organization column, and the app role owns none", async () => {
    const offenders = await asRole("superuser", async (client) => {
      const { rows } = await client.query<{ table: string; rls: boolean; forced: boolean; owner: string; partition: boolean; appCanRead: boolean }>(`
        SELECT c.relname AS table, c.relrowsecurity AS rls, c.relforcerowsecurity AS forced,
               pg_get_userbyid(c.relowner) AS owner, c.relispartition AS partition,
               has_table_privilege('svc_app', c.oid, 'SELECT,INSERT,UPDATE,DELETE') AS "appCanRead"
        FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
        WHERE c.relkind IN ('r', 'p')
          AND (EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped)
               OR c.relname = 'organizations')`);
      expect(rows.length).toBeGreaterThan(5);
      // A partition is protected by its parent: the application role has no privilege on it at all.
      return rows.filter((row) => row.owner === "svc_app" || (row.partition ? row.appCanRead : !(row.rls && row.forced)));
    });
    expect(offenders).toEqual([]);
  });

  it("gives the application role no way around row-level security", async () => {
    await asRole("superuser", async (client) => {
      const { rows } = await client.query(
        "SELECT rolsuper, rolbypassrls, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = 'svc_app'",
      );
      expect(rows[0]).toEqual({ rolsuper: false, rolbypassrls: false, rolcreaterole: false, rolcreatedb: false });
      const owned = await client.query("SELECT count(*)::int AS n FROM pg_class WHERE relowner = 'svc_app'::regrole");
      expect(owned.rows[0].n).toBe(0);
    });
  });
});
