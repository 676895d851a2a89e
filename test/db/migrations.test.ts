import { Client } from "@neondatabase/serverless";
import { describe, expect, inject, it } from "vitest";
import { applyMigrations, type Migration } from "../../db/migrate";
import { BUNDLED_MIGRATIONS } from "../../db/migrations/bundled";
import { loadDriver, useBridge, withClient } from "../../db/neon";
import { sha256Hex } from "../../worker/http/hash";
import { callWith } from "../support/http";
import { captureLogs } from "../support/logs";
import { ownDatabase } from "../support/own-database";

describe("migrations", () => {
  it("the Worker carries every migration on disk", () => {
    expect(BUNDLED_MIGRATIONS.map((migration) => migration.name)).toEqual(inject("migrationNames"));
  });

  it("the committed bundle (and wrangler.toml's run_worker_first) are what scripts/generate.ts writes", () => {
    for (const { path, committed, expected } of inject("generatedFiles")) expect(committed, `${path} is stale: run npm run generate`).toBe(expected);
  });

  it("SVC_MIGRATE=1 applies pending migrations once, even when requests race", async () => {
    const { emptyMigration, app } = inject("database");
    const migrating = { SVC_MIGRATE: "1", SVC_MIGRATION_DATABASE_URL: emptyMigration, SVC_DATABASE_URL: app };
    let responses: Response[] = [];
    // One request applies them and says so in one line, read here rather than printed; the others find nothing pending.
    const logs = await captureLogs(async () => {
      responses = await Promise.all([1, 2, 3].map(() => callWith(migrating, "/readyz")));
    });
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(logs.text.split("\n").filter((line) => line.includes('"event":"migrations.applied"'))).toHaveLength(1);
    expect(logs.event("migrations.applied")).toMatchObject({ level: "info", applied: inject("migrationNames") });

    useBridge(inject("database").bridge);
    await loadDriver();
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

describe("migration checksums", () => {
  const recorded = (url: string) =>
    withClient(
      url,
      async (client) => (await client.query<{ name: string; checksum: string | null }>("SELECT name, checksum FROM schema_migrations ORDER BY name")).rows,
    );
  const expected = () => Promise.all(BUNDLED_MIGRATIONS.map(async ({ name, sql }) => ({ name, checksum: await sha256Hex(sql) })));

  it("records each applied migration's SHA-256, and backfills a database migrated before checksums were kept", async () => {
    const { database } = await ownDatabase();
    expect(await recorded(database.migration)).toEqual(await expected());

    await withClient(database.migration, (client) => client.query("ALTER TABLE schema_migrations DROP COLUMN checksum"));
    expect(await withClient(database.migration, (client) => applyMigrations(client, BUNDLED_MIGRATIONS))).toEqual([]);
    expect(await recorded(database.migration)).toEqual(await expected());
  });

  it("refuses, naming it, an applied migration whose file changed, and applies nothing", async () => {
    const { database } = await ownDatabase();
    const changed: Migration[] = BUNDLED_MIGRATIONS.map((migration) =>
      migration.name === "0002_core" ? { ...migration, sql: `${migration.sql}\n-- edited after it was applied\n` } : migration,
    );
    const pending: Migration = { name: "9999_pending", sql: "CREATE TABLE never_created (id int)" };
    const refusal = await withClient(database.migration, (client) => applyMigrations(client, [...changed, pending])).catch((error: unknown) => error);
    expect((refusal as Error).message).toMatch(/^Migration 0002_core was changed after it was applied/);
    expect((await recorded(database.migration)).map((row) => row.name)).not.toContain("9999_pending");
  });
});
