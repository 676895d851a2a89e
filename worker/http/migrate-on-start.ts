// SVC_MIGRATE=1: the first request an isolate serves applies pending migrations (Workers allows no
// I/O at isolate start). The advisory lock in applyMigrations keeps concurrent isolates apart.
import { Client } from "@neondatabase/serverless";
import type { MiddlewareHandler } from "hono";
import { applyMigrations } from "../../db/migrate";
import { BUNDLED_MIGRATIONS } from "../../db/migrations/bundled";
import type { AppEnv } from "./context";
import { log } from "../log";

let migrated: Promise<void> | undefined;

async function migrate(url: string): Promise<void> {
  const client = new Client(url);
  client.on("error", () => {});
  await client.connect();
  try {
    const applied = await applyMigrations(client, BUNDLED_MIGRATIONS);
    log("info", "migrations.applied", { applied });
  } finally {
    await client.end().catch(() => {});
  }
}

export const migrateOnStart: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { migrate: wanted, migrationUrl } = c.var.config.database;
  // Liveness never waits on the database.
  const url = wanted && c.req.path !== "/health" ? migrationUrl : null;
  if (url) {
    migrated ??= migrate(url).catch((error: unknown) => {
      migrated = undefined; // the next request tries again
      throw error;
    });
    await migrated;
  }
  await next();
};
