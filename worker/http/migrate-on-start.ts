// SVC_MIGRATE=1: requests an isolate serves apply pending migrations until one has succeeded
// (Workers allows no I/O at isolate start). Each request runs the migration itself rather than await
// another request's promise (workerd forbids sharing I/O across requests); the advisory lock in
// applyMigrations keeps them, and other isolates, apart, and a second run finds nothing pending.
import type { MiddlewareHandler } from "hono";
import { withClient } from "../../db/neon";
import { applyMigrations, MigrationChanged } from "../../db/migrate";
import { BUNDLED_MIGRATIONS } from "../../db/migrations/bundled";
import type { AppEnv } from "./context";
import { log } from "../log";

let done = false;

export const migrateOnStart: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { migrate: wanted, migrationUrl } = c.var.config.database;
  // Liveness never waits on the database.
  if (wanted && migrationUrl && !done && c.req.path !== "/health") {
    const applied = await withClient(migrationUrl, (client) => applyMigrations(client, BUNDLED_MIGRATIONS)).catch((error: unknown) => {
      // Every request is refused until the file is restored; the log says which migration (our own
      // sentence, quoting nothing of a request).
      if (error instanceof MigrationChanged) log("error", "migrations.refused", { migration: error.migration, reason: error.message });
      throw error;
    });
    if (applied.length > 0) log("info", "migrations.applied", { applied });
    done = true;
  }
  await next();
};
