// Deleting rows past their keeping a bounded amount at a time: each statement removes at most a batch,
// oldest first (by an index on the time it goes by), in a transaction of its own that ends quickly, and
// a pass stops after a number of batches; what remains waits for the next sweep (five minutes later).
import { and, lte, type SQL, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Db } from "./transaction";

const PRUNE_BATCH = 1000;
/** Batches a pass deletes at most. */
const PRUNE_BATCHES = 20;

/**
 * Deletes the rows of `table` whose time `by` is at or before `before` (now, unless given), and that
 * `only` names if given, by their `key`, oldest first; the rows deleted.
 */
export async function pruneExpired(
  db: Db,
  { table, key, by, before = sql`now()`, only }: { table: PgTable; key: PgColumn; by: PgColumn; before?: SQL; only?: SQL },
): Promise<number> {
  let deleted = 0;
  for (let round = 0; round < PRUNE_BATCHES; round += 1) {
    const expired = db
      .select({ key })
      .from(table)
      .where(and(only, lte(by, before)))
      .orderBy(by)
      .limit(PRUNE_BATCH);
    const { rowCount } = await db.execute(db.delete(table).where(sql`${key} IN (${expired})`));
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < PRUNE_BATCH) break;
  }
  return deleted;
}
