// Makes a fresh or existing local cluster ready: the migration login and database, every migration,
// and deployment logins for the roles the migrations create. Safe to run on every start.
import pg from "pg";
import { applyMigrations } from "../db/migrate";
import { migrationsOnDisk } from "../db/migrations-on-disk";

export const DATABASE = "svc";
const MIGRATION = { login: "svc_migrator", password: "svc_migrator_local" };

/** The roles the Worker and the commands act as (db/roles.ts), created NOLOGIN by the migrations. */
const ROLES = { app: "svc_app", operator: "svc_operator", maintenance: "svc_maintenance", reseal: "svc_reseal" } as const;
type Purpose = keyof typeof ROLES;

/**
 * Two logins a role, made as docs/deploy.md tells an operator to make them (by SQL, members of the
 * role, never the role itself): one that does not inherit it, which the Worker and `npm start` use so
 * that anything not taking its role inside its transaction fails here; and one that does, for what
 * takes no role itself (the tests' raw SQL, the previous release in test/releases).
 */
const loginOf = (purpose: Purpose, inherits: boolean) => `${ROLES[purpose]}_${inherits ? "member" : "login"}`;
// Local-only credentials for a loopback server.
const passwordOf = (login: string) => `${login}_local`;

export type DatabaseUrls = Record<Purpose | "migration", string> & { inheriting: Record<Purpose, string> };

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
  const url = (login: string) => `postgres://${login}:${passwordOf(login)}@127.0.0.1:${port}/${DATABASE}`;
  await withClient(superuserUrl(), async (client) => {
    const exists = await client.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [MIGRATION.login]);
    if (exists.rowCount === 0) {
      await client.query(`CREATE ROLE ${MIGRATION.login} LOGIN CREATEROLE PASSWORD '${MIGRATION.password}'`);
    }
    const db = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [DATABASE]);
    if (db.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE} OWNER ${MIGRATION.login}`);
  });
  await withClient(`postgres://${MIGRATION.login}:${MIGRATION.password}@127.0.0.1:${port}/${DATABASE}`, (client) =>
    applyMigrations(client, migrationsOnDisk()),
  );
  await withClient(superuserUrl(DATABASE), async (client) => {
    for (const purpose of Object.keys(ROLES) as Purpose[]) {
      // Data kept from before the roles had logins of their own: a role is never a login itself.
      await client.query(`ALTER ROLE ${ROLES[purpose]} NOLOGIN PASSWORD NULL`);
      for (const inherits of [false, true]) {
        const login = loginOf(purpose, inherits);
        const found = await client.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [login]);
        const attributes = `LOGIN ${inherits ? "INHERIT" : "NOINHERIT"} NOSUPERUSER NOBYPASSRLS PASSWORD '${passwordOf(login)}'`;
        if (found.rowCount === 0) await client.query(`CREATE ROLE ${login} ${attributes} IN ROLE ${ROLES[purpose]}`);
        else await client.query(`ALTER ROLE ${login} ${attributes}`);
      }
    }
  });
  const logins = (inherits: boolean) =>
    Object.fromEntries((Object.keys(ROLES) as Purpose[]).map((purpose) => [purpose, url(loginOf(purpose, inherits))])) as Record<Purpose, string>;
  return { migration: url(MIGRATION.login), ...logins(false), inheriting: logins(true) };
}
