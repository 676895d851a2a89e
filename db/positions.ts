// Which input positions a set-based statement touched, answered as one row: a statement that returns
// one row per event costs the driver a protocol message to parse per row (bench/ingest.ts profiles
// it as the largest part of a batch's time), one comma-separated field costs one.
import { type SQL, sql } from "drizzle-orm";
import type { Tx } from "./transaction";

/** The select list that answers the positions `expression` names, as one `positions` field. */
export const positionsOf = (expression: SQL) => sql`string_agg((${expression})::text, ',') AS positions`;

/** Runs `statement`, whose final select is `positionsOf(...)`, and returns the positions. */
export async function touchedPositions(tx: Tx, statement: SQL): Promise<Set<number>> {
  return positionsIn((await tx.execute(statement)).rows);
}

/** The positions a statement answered as one `positions` field (what `positionsOf` selects). */
export function positionsIn(rows: readonly Record<string, unknown>[]): Set<number> {
  const positions = rows[0]?.positions as string | null | undefined;
  return new Set(positions ? positions.split(",").map(Number) : []);
}
