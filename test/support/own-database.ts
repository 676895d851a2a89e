// A database of a test's own, in the suite's PostgreSQL, with every migration applied the way the
// Worker applies them (SVC_MIGRATE=1): for tests whose subject is database-wide state (the event
// partitions) and that must neither see nor leave anything in the shared database. It lives as long
// as the suite's temporary cluster.
import { inject } from "vitest";
import { applyMigrations } from "../../db/migrate";
import { BUNDLED_MIGRATIONS } from "../../db/migrations/bundled";
import { useBridge, withClient } from "../../db/neon";
import type { TestDatabase } from "../setup/bindings";
import { asRole } from "./sql";

export interface OwnDatabase {
  /** The same logins as the shared database's, connecting to this one. */
  database: TestDatabase;
  /** The Worker's database variables pointing at it, to merge over `env`. */
  bindings: Record<string, string>;
}

export async function ownDatabase(): Promise<OwnDatabase> {
  const shared = inject("database");
  const name = `svc_own_${crypto.randomUUID().replaceAll("-", "")}`;
  // Owned by the migration login, as `svc` itself is (local/provision.ts).
  await asRole("superuser", (client) => client.query(`CREATE DATABASE ${name} OWNER svc_migrator`));
  const elsewhere = (url: string) => {
    const moved = url.replace(/\/svc$/, `/${name}`);
    if (moved === url) throw new Error(`cannot point ${new URL(url).username}'s URL at another database`);
    return moved;
  };
  const database: TestDatabase = {
    ...shared,
    app: elsewhere(shared.app),
    operator: elsewhere(shared.operator),
    migration: elsewhere(shared.migration),
    maintenance: elsewhere(shared.maintenance),
    reseal: elsewhere(shared.reseal),
    superuser: elsewhere(shared.superuser),
    logins: {
      app: elsewhere(shared.logins.app),
      operator: elsewhere(shared.logins.operator),
      maintenance: elsewhere(shared.logins.maintenance),
      reseal: elsewhere(shared.logins.reseal),
    },
  };
  useBridge(database.bridge);
  await withClient(database.migration, (client) => applyMigrations(client, BUNDLED_MIGRATIONS));
  return {
    database,
    bindings: {
      SVC_DATABASE_URL: database.logins.app,
      SVC_ADMIN_DATABASE_URL: database.logins.operator,
      SVC_MIGRATION_DATABASE_URL: database.migration,
      SVC_MAINTENANCE_DATABASE_URL: database.logins.maintenance,
    },
  };
}
