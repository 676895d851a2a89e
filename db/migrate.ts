// Applies pending SQL migrations in order, once, under a transaction's advisory lock so that concurrent
// starters (several isolates with SVC_MIGRATE=1, or a deploy pipeline) never apply one twice. Each applied
// migration's SHA-256 is kept: a file changed after it was applied is refused before anything runs,
// since the database would no longer match what the files say.
import type { RawClient } from "./pipeline";

export interface Migration {
  name: string;
  sql: string;
}

export class MigrationChanged extends Error {
  override readonly name = "MigrationChanged";
  constructor(readonly migration: string) {
    super(
      `Migration ${migration} was changed after it was applied (its SHA-256 differs from the one recorded). ` +
        "Restore the file as it was applied and put the change in a new migration.",
    );
  }
}

// An arbitrary constant that names "migrations" among this database's advisory locks.
const MIGRATION_LOCK = 72_310_001;

/**
 * Whether a connection string names Neon's pooled endpoint (its host's first label ends in
 * `-pooler`): migrations need the direct one, where a transaction's DDL and its lock share a session
 * with nothing else.
 */
export const isPooledEndpoint = (url: string): boolean => {
  try {
    return /-pooler$/i.test(new URL(url).hostname.split(".")[0] ?? "");
  } catch {
    return false;
  }
};

export const POOLED_MIGRATION_URL =
  "SVC_MIGRATION_DATABASE_URL names a pooled endpoint (its host ends in -pooler): migrations need the direct endpoint, the same host without -pooler.";

async function checksum(sql: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(sql));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * `work` in a transaction holding the migrations' lock: a transaction-level lock, since a pooler may
 * run each transaction on another server connection and a session's lock would be left on one.
 */
async function locked<T>(client: RawClient, work: () => Promise<T>): Promise<T> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    const result = await work();
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

/**
 * Applies what is pending in one transaction under the lock, so a runner that waited for it finds
 * nothing left; a migration that fails leaves none of them applied.
 */
export async function applyMigrations(client: RawClient, migrations: readonly Migration[]): Promise<string[]> {
  const ordered = await Promise.all(
    [...migrations].sort((a, b) => a.name.localeCompare(b.name)).map(async (migration) => ({ ...migration, checksum: await checksum(migration.sql) })),
  );
  return locked(client, async () => {
    // The runner's own bookkeeping, so it is kept here rather than in a migration; the ALTER brings
    // a table made before checksums were kept up to date.
    await client.query("CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), checksum text)");
    await client.query("ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text");
    const { rows } = await client.query<{ name: string; checksum: string | null }>("SELECT name, checksum FROM schema_migrations");
    const recorded = new Map(rows.map((row) => [row.name, row.checksum]));
    for (const migration of ordered) {
      if (recorded.get(migration.name) && recorded.get(migration.name) !== migration.checksum) throw new MigrationChanged(migration.name);
    }
    const applied: string[] = [];
    for (const migration of ordered) {
      if (recorded.has(migration.name)) {
        // Applied before checksums were kept: recorded as the file is now.
        if (recorded.get(migration.name) === null) {
          await client.query("UPDATE schema_migrations SET checksum = $2 WHERE name = $1", [migration.name, migration.checksum]);
        }
        continue;
      }
      try {
        await client.query(migration.sql);
      } catch (error) {
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`);
      }
      await client.query("INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)", [migration.name, migration.checksum]);
      applied.push(migration.name);
    }
    return applied;
  });
}
