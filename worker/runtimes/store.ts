// Runtimes an organization's engines run on (spec: runtimes.manage): a name, labels, and when an
// engine event last named it (worker/records/project.ts). Removal is a mark: runs keep the name they
// reported, so history stays readable, and the name can be registered again.
import type { Tx } from "../../db/transaction";

export const MAX_LABELS = 20;

interface Row {
  id: string;
  name: string;
  labels: string[];
  created_at: Date;
  last_seen_at: Date | null;
  removed_at: Date | null;
  runs: number;
}

const SELECT = `
SELECT t.id, t.name, t.labels, t.created_at, t.last_seen_at, t.removed_at,
       (SELECT count(*)::int FROM engine_runs r WHERE r.org_id = t.org_id AND r.runtime = t.name) AS runs
FROM runtimes t`;

const view = (row: Row) => ({
  id: row.id,
  name: row.name,
  labels: row.labels,
  createdAt: row.created_at.toISOString(),
  lastSeenAt: row.last_seen_at?.toISOString() ?? null,
  removedAt: row.removed_at?.toISOString() ?? null,
  /** Runs that reported this runtime's name. */
  runs: row.runs,
});

export type RuntimeView = ReturnType<typeof view>;

export async function listRuntimes(tx: Tx, orgId: string, includeRemoved: boolean): Promise<RuntimeView[]> {
  const { rows } = await tx.sql.query<Row>(`${SELECT} WHERE t.org_id = $1 AND ($2 OR t.removed_at IS NULL) ORDER BY t.name, t.created_at DESC`, [
    orgId,
    includeRemoved,
  ]);
  return rows.map(view);
}

/** A live runtime (removed ones are history). */
export async function findRuntime(tx: Tx, orgId: string, runtimeId: string): Promise<RuntimeView | null> {
  const { rows } = await tx.sql.query<Row>(`${SELECT} WHERE t.org_id = $1 AND t.id = $2 AND t.removed_at IS NULL`, [orgId, runtimeId]);
  return rows[0] ? view(rows[0]) : null;
}

/** Null when a live runtime already has the name. */
export async function registerRuntime(tx: Tx, orgId: string, name: string, labels: readonly string[]): Promise<RuntimeView | null> {
  const { rows } = await tx.sql.query<{ id: string }>(
    `INSERT INTO runtimes (org_id, name, labels) VALUES ($1, $2, $3)
     ON CONFLICT (org_id, name) WHERE removed_at IS NULL DO NOTHING RETURNING id`,
    [orgId, name, [...new Set(labels)].sort()],
  );
  return rows[0] ? findRuntime(tx, orgId, rows[0].id) : null;
}

/** Adds (tag) or takes away (untag) labels; labels stay sorted and unique. */
export async function relabel(tx: Tx, orgId: string, runtimeId: string, add: readonly string[], remove: readonly string[]): Promise<RuntimeView | null> {
  const { rows } = await tx.sql.query<{ id: string }>(
    `UPDATE runtimes SET labels = ARRAY(
       SELECT DISTINCT l FROM unnest(labels || $3::text[]) AS l WHERE NOT (l = ANY ($4::text[])) ORDER BY l
     ) WHERE org_id = $1 AND id = $2 AND removed_at IS NULL RETURNING id`,
    [orgId, runtimeId, add, remove],
  );
  return rows[0] ? findRuntime(tx, orgId, rows[0].id) : null;
}

export async function removeRuntime(tx: Tx, orgId: string, runtimeId: string): Promise<string | null> {
  const { rows } = await tx.sql.query<{ name: string }>(
    "UPDATE runtimes SET removed_at = now() WHERE org_id = $1 AND id = $2 AND removed_at IS NULL RETURNING name",
    [orgId, runtimeId],
  );
  return rows[0]?.name ?? null;
}
