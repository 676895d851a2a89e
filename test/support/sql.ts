// Raw SQL as a chosen database role, from inside workerd, through the same bridge the Worker uses.
import { Client } from "@neondatabase/serverless";
import { inject } from "vitest";
import { loadDriver, openPool, useBridge } from "../../db/neon";
import type { TestDatabase } from "../setup/bindings";

export type RoleName = Exclude<keyof TestDatabase, "bridge" | "emptyMigration" | "logins">;

/** Runs `work` connected as `role`, to the suite's shared database unless told another (see own-database.ts). */
export async function asRole<T>(role: RoleName, work: (client: Client) => Promise<T>, database: TestDatabase = inject("database")): Promise<T> {
  useBridge(database.bridge);
  await loadDriver(); // the bridge applies once the driver is loaded (db/neon.ts loads it on first use)
  const client = new Client(database[role]);
  client.on("error", () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Runs `work` in a transaction as the application role acting for `orgId` (or for nobody), then rolls back. */
export function asTenant<T>(orgId: string | null, work: (client: Client) => Promise<T>): Promise<T> {
  return asRole("app", async (client) => {
    await client.query("BEGIN");
    try {
      if (orgId) await client.query("SELECT set_config('app.org_id', $1, true)", [orgId]);
      return await work(client);
    } finally {
      await client.query("ROLLBACK").catch(() => {});
    }
  });
}

/** A pool of the application role's connections, as the Worker opens them. */
export function appPool(database = inject("database")) {
  useBridge(database.bridge);
  return openPool(database.app, "svc_app", 2);
}
