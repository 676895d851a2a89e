// Makes a fresh or existing local cluster ready: the migration login and database, every migration,
// and passwords for the roles the migrations create. Safe to run on every start.
import pg from "pg";
import { applyMigrations } from "../db/migrate";
import { migrationsOnDisk } from "../db/migrations-on-disk";

export const DATABASE = "svc";
// Local-only credentials for a loopback server.
const LOGINS = {
  migration: { role: "svc_migrator", password: "svc_migrator_local" },
  app: { role: "svc_app", password: "svc_app_local" },
  operator: { role: "svc_operator", password: "svc_operator_local" },
  maintenance: { role: "svc_maintenance", password: "svc_maintenance_local" },
  reseal: { role: "svc_reseal", password: "svc_reseal_local" },
} as const;

export type DatabaseUrls = Record<keyof typeof LOGINS, string>;

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function provision(port: number, superuserUrl: (database?: string) => string): Promise<DatabaseUrls> {
  const url = (login: keyof typeof LOGINS) => `postgres://${LOGINS[login].role}:${LOGINS[login].password}@127.0.0.1:${port}/${DATABASE}`;
  await withClient(superuserUrl(), async (client) => {
    const { migration } = LOGINS;
    const exists = await client.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [migration.role]);
    if (exists.rowCount === 0) {
      await client.query(`CREATE ROLE ${migration.role} LOGIN CREATEROLE PASSWORD '${migration.password}'`);
    }
    const db = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [DATABASE]);
    if (db.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE} OWNER ${migration.role}`);
  });
  await withClient(url("migration"), (client) => applyMigrations(client, migrationsOnDisk()));
  await withClient(superuserUrl(DATABASE), async (client) => {
    for (const login of ["app", "operator", "maintenance", "reseal"] as const) {
      await client.query(`ALTER ROLE ${LOGINS[login].role} LOGIN PASSWORD '${LOGINS[login].password}'`);
    }
  });
  return { migration: url("migration"), app: url("app"), operator: url("operator"), maintenance: url("maintenance"), reseal: url("reseal") };
}
