// assistant_usage keeps one row per person and UTC day, and only today's is ever read (the limits).
// The sweep deletes the days older than USAGE_KEPT_DAYS as the maintenance role, whose policy shows it
// only those (migrations/0033_assistant_usage_prune.sql, the same 35). One statement, not batches as
// for tokens: a day ages out at most one row per person who asked that day (index assistant_usage_day).
import { lt, sql } from "drizzle-orm";
import { assistantUsage } from "../../db/schema/assistant";
import type { Db } from "../../db/transaction";

/** Days of usage kept before today (UTC): a month's and a few more, for the operator who reads them. */
export const USAGE_KEPT_DAYS = 35;

export async function pruneAssistantUsage(db: Db): Promise<number> {
  const cutoff = sql`(now() AT TIME ZONE 'UTC')::date - ${USAGE_KEPT_DAYS}::integer`;
  const { rowCount } = await db.execute(db.delete(assistantUsage).where(lt(assistantUsage.day, cutoff)));
  return rowCount ?? 0;
}
