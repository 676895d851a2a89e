// Database access for commands that run in Node: node-postgres over TCP (no bridge needed), seen
// through the same Connection interface the Worker uses.
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { forDrizzle } from "./pipeline";
import { type Acting, confine, takingRole } from "./roles";
import type { Connection, Db } from "./transaction";

/** A pool whose transactions take `role` (db/roles.ts). */
export function nodePool(connectionString: string, role: Acting) {
  const pool = new pg.Pool({ connectionString, max: 4 });
  // An idle client whose server goes away (a stopped local stack) must not crash the process.
  pool.on("error", () => {});
  return {
    connect: async (): Promise<Connection> => {
      const client = await pool.connect();
      await confine(client, role, connectionString).catch((error: unknown) => {
        client.release();
        throw error;
      });
      return { raw: client, role, db: drizzle({ client: forDrizzle(client) }) as unknown as Db, release: (error) => client.release(error) };
    },
    end: () => pool.end(),
  };
}

/** One connection as drizzle for `work`, always closed, its transactions taking `role`: the operator commands' maintenance work. */
export const withNodeDb = <T>(connectionString: string, role: Acting, work: (db: Db) => Promise<T>): Promise<T> =>
  withNodeClient(connectionString, (client) => work(drizzle({ client: forDrizzle(takingRole(client, role)) }) as unknown as Db));

/** One raw connection for `work`, always closed: the migration runner's. */
export async function withNodeClient<T>(connectionString: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
