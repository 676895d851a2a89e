// What a transaction acts as, changed mid-way: its organization, or one more row it may see by key.
// Apart from db/transaction.ts so that the isolate's start, which loads that module, does not load
// drizzle's SQL builder (bench/startup.ts).
import { sql } from "drizzle-orm";
import type { Scope, Tx } from "./transaction";

/**
 * Makes a transaction act as an organization it learned mid-way (from a lookup, or one it is about to
 * create). From here on row-level security shows and accepts that organization's rows.
 */
export async function actAs(tx: Tx, orgId: string): Promise<void> {
  await tx.execute(sql`SELECT set_config('app.org_id', ${orgId}, true)`);
}

/** Lets a transaction see one more row by a key it learned mid-way (a session's person). */
export async function addLookup(tx: Tx, key: keyof NonNullable<Scope["lookups"]>, value: string): Promise<void> {
  await tx.execute(sql`SELECT set_config(${`app.lookup_${key}`}, ${value}, true)`);
}
