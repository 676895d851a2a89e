import { Client } from "@neondatabase/serverless";
import { describe, expect, inject, it } from "vitest";
import { BUNDLED_MIGRATIONS } from "../../db/migrations/bundled";
import { useBridge } from "../../db/neon";
import { callWith } from "../support/http";

describe("migrations", () => {
  it("the Worker carries every migration on disk", () => {
    expect(BUNDLED_MIGRATIONS.map((migration) => migration.name)).toEqual(inject("migrationNames"));
  });

  it("SVC_MIGRATE=1 applies pending migrations once, even when requests race", async () => {
    const { emptyMigration, app } = inject("database");
    const migrating = { SVC_MIGRATE: "1", SVC_MIGRATION_DATABASE_URL: emptyMigration, SVC_DATABASE_URL: app };
    const responses = await Promise.all([1, 2, 3].map(() => callWith(migrating, "/readyz")));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);

    useBridge(inject("database").bridge);
    const client = new Client(emptyMigration);
    client.on("error", () => {});
    await client.connect();
    try {
      const { rows } = await client.query("SELECT name FROM schema_migrations ORDER BY name");
      expect(rows.map((row) => row.name)).toEqual(inject("migrationNames"));
    } finally {
      await client.end();
    }
  });
});
