// Runtimes an organization's engines run on (spec: runtimes.manage): a name, labels, and when an
// engine event last named it (worker/records/project.ts). Removal is a mark: runs keep the name they
// reported, so history stays readable, and the name can be registered again.
import { and, asc, desc, eq, isNull, type SQL, sql } from "drizzle-orm";
import { runtimes } from "../../db/schema/records";
import type { Tx } from "../../db/transaction";

export const MAX_LABELS = 20;

/** Runtimes matching `where`, each with the runs that reported its name. */
const selectRuntimes = (tx: Tx, where: SQL | undefined) =>
  tx
    .select({
      id: runtimes.id,
      name: runtimes.name,
      labels: runtimes.labels,
      createdAt: runtimes.createdAt,
      lastSeenAt: runtimes.lastSeenAt,
      removedAt: runtimes.removedAt,
      // Named by table, not interpolated: a single-table select writes its columns unqualified, and
      // inside this subquery a bare "name" would be the engine run's own column.
      runs: sql<number>`(SELECT count(*)::int FROM engine_runs r WHERE r.org_id = runtimes.org_id AND r.runtime = runtimes.name)`,
    })
    .from(runtimes)
    .where(where);

const view = (row: Awaited<ReturnType<typeof selectRuntimes>>[number]) => ({
  id: row.id,
  name: row.name,
  labels: row.labels,
  createdAt: row.createdAt.toISOString(),
  lastSeenAt: row.lastSeenAt?.toISOString() ?? null,
  removedAt: row.removedAt?.toISOString() ?? null,
  /** Runs that reported this runtime's name. */
  runs: row.runs,
});

export type RuntimeView = ReturnType<typeof view>;

export async function listRuntimes(tx: Tx, orgId: string, includeRemoved: boolean): Promise<RuntimeView[]> {
  const rows = await selectRuntimes(tx, and(eq(runtimes.orgId, orgId), includeRemoved ? undefined : isNull(runtimes.removedAt))).orderBy(
    asc(runtimes.name),
    desc(runtimes.createdAt),
  );
  return rows.map(view);
}

const liveRuntime = (orgId: string, runtimeId: string) => and(eq(runtimes.orgId, orgId), eq(runtimes.id, runtimeId), isNull(runtimes.removedAt));

/** A live runtime (removed ones are history). */
export async function findRuntime(tx: Tx, orgId: string, runtimeId: string): Promise<RuntimeView | null> {
  const [row] = await selectRuntimes(tx, liveRuntime(orgId, runtimeId));
  return row ? view(row) : null;
}

/** Null when a live runtime already has the name. */
export async function registerRuntime(tx: Tx, orgId: string, name: string, labels: readonly string[]): Promise<RuntimeView | null> {
  const [row] = await tx
    .insert(runtimes)
    .values({ orgId, name, labels: [...new Set(labels)].sort() })
    .onConflictDoNothing({ target: [runtimes.orgId, runtimes.name], where: sql`removed_at IS NULL` })
    .returning({ id: runtimes.id });
  return row ? findRuntime(tx, orgId, row.id) : null;
}

/** Adds (tag) or takes away (untag) labels; labels stay sorted and unique. */
export async function relabel(tx: Tx, orgId: string, runtimeId: string, add: readonly string[], remove: readonly string[]): Promise<RuntimeView | null> {
  const [row] = await tx
    .update(runtimes)
    .set({
      labels: sql`ARRAY(SELECT DISTINCT l FROM unnest(labels || ${sql.param(add)}::text[]) AS l WHERE NOT (l = ANY (${sql.param(remove)}::text[])) ORDER BY l)`,
    })
    .where(liveRuntime(orgId, runtimeId))
    .returning({ id: runtimes.id });
  return row ? findRuntime(tx, orgId, row.id) : null;
}

export async function removeRuntime(tx: Tx, orgId: string, runtimeId: string): Promise<string | null> {
  const [row] = await tx.update(runtimes).set({ removedAt: sql`now()` }).where(liveRuntime(orgId, runtimeId)).returning({ name: runtimes.name });
  return row?.name ?? null;
}
