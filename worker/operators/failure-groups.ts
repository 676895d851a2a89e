// The own-failure store's groups as the operators see them (admin.failures) and the maintenance pass
// that prunes them; worker/http/failure-store.ts writes them.
import { desc, lt, sql } from "drizzle-orm";
import { failureGroups } from "../../db/schema/operators";
import type { Db, Tx } from "../../db/transaction";
import { MAX_FAILURE_GROUPS } from "../http/failure-store";

/** The maintenance pass: groups whose last occurrence is older than the retention. */
export async function pruneFailureGroups(db: Db, retentionDays: number): Promise<number> {
  const { rowCount } = await db.execute(db.delete(failureGroups).where(lt(failureGroups.lastSeenAt, sql`now() - make_interval(days => ${retentionDays})`)));
  return rowCount ?? 0;
}

export async function listFailureGroups(admin: Tx) {
  const g = failureGroups;
  const rows = await admin
    .select({
      fingerprint: g.fingerprint,
      code: g.code,
      route: g.route,
      errorType: g.errorType,
      sample: g.sample,
      occurrences: g.occurrences,
      firstSeenAt: g.firstSeenAt,
      lastSeenAt: g.lastSeenAt,
    })
    .from(g)
    .orderBy(desc(g.lastSeenAt))
    .limit(MAX_FAILURE_GROUPS);
  return rows.map((row) => ({ ...row, firstSeenAt: row.firstSeenAt.toISOString(), lastSeenAt: row.lastSeenAt.toISOString() }));
}
