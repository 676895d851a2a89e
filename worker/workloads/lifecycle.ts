// A workload's life after it is defined: versions added (current, or exploratory until promoted),
// archived (no new runs, history kept); and a run's: read, cancelled, retried.
// A workload made before current versions were kept reads its latest version as current.
import { and, desc, eq, ne, sql } from "drizzle-orm";
import { runtimeCommands, workloadRuns, workloads, workloadVersions } from "../../db/schema/workloads";
import type { Tx } from "../../db/transaction";
import { enqueueCommand } from "../commands";

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** The current version's id of the workload aliased `w`. */
export const CURRENT_VERSION = sql`COALESCE(w.current_version_id, (SELECT id FROM workload_versions l WHERE l.workload_id = w.id ORDER BY l.number DESC LIMIT 1))`;

interface WorkloadRow {
  id: string;
  name: string;
  created_at: Date;
  archived_at: Date | null;
  current_version_id: string;
}

export async function findWorkload(tx: Tx, orgId: string, workloadId: string, lock = false) {
  const { rows } = await tx.execute<WorkloadRow>(
    sql`SELECT w.id, w.name, w.created_at, w.archived_at, ${CURRENT_VERSION} AS current_version_id FROM workloads w
     WHERE w.org_id = ${orgId} AND w.id = ${workloadId} ${lock ? sql`FOR UPDATE OF w` : sql``}`,
  );
  return rows[0] ?? null;
}

/** One workload with every version, newest first, and which is current. */
export async function workloadDetail(tx: Tx, orgId: string, workloadId: string) {
  const workload = await findWorkload(tx, orgId, workloadId);
  if (!workload) return null;
  const versions = await tx
    .select({
      id: workloadVersions.id,
      number: workloadVersions.number,
      exploratory: workloadVersions.exploratory,
      promotedAt: workloadVersions.promotedAt,
      createdAt: workloadVersions.createdAt,
      compiled: workloadVersions.compiled,
    })
    .from(workloadVersions)
    .where(and(eq(workloadVersions.orgId, orgId), eq(workloadVersions.workloadId, workloadId)))
    .orderBy(desc(workloadVersions.number));
  return {
    id: workload.id,
    name: workload.name,
    createdAt: workload.created_at.toISOString(),
    archivedAt: iso(workload.archived_at),
    currentVersionId: workload.current_version_id,
    versions: versions.map((v) => ({
      id: v.id,
      number: v.number,
      exploratory: v.exploratory,
      current: v.id === workload.current_version_id,
      promotedAt: iso(v.promotedAt),
      createdAt: v.createdAt.toISOString(),
      compiled: v.compiled,
    })),
  };
}

/** The next version of a locked, live workload; current unless exploratory. */
export async function addVersion(tx: Tx, orgId: string, workloadId: string, compiled: Record<string, unknown>, exploratory: boolean) {
  const { rows } = await tx.execute<{ id: string; number: number }>(sql`INSERT INTO workload_versions (org_id, workload_id, number, compiled, exploratory)
     SELECT ${orgId}, ${workloadId}, COALESCE(max(number), 0) + 1, ${JSON.stringify(compiled)}, ${exploratory} FROM workload_versions WHERE workload_id = ${workloadId}
     RETURNING id, number`);
  const version = rows[0]!;
  if (!exploratory) await setCurrentVersion(tx, orgId, workloadId, version.id);
  return version;
}

const setCurrentVersion = (tx: Tx, orgId: string, workloadId: string, versionId: string) =>
  tx
    .update(workloads)
    .set({ currentVersionId: versionId })
    .where(and(eq(workloads.orgId, orgId), eq(workloads.id, workloadId)));

export async function archiveWorkload(tx: Tx, orgId: string, workloadId: string): Promise<Date> {
  const [row] = await tx
    .update(workloads)
    .set({ archivedAt: sql`COALESCE(archived_at, now())` })
    .where(and(eq(workloads.orgId, orgId), eq(workloads.id, workloadId)))
    .returning({ archivedAt: workloads.archivedAt });
  return row!.archivedAt!;
}

export async function findVersion(tx: Tx, orgId: string, versionId: string) {
  const [version] = await tx
    .select({ id: workloadVersions.id, number: workloadVersions.number, exploratory: workloadVersions.exploratory, workloadId: workloadVersions.workloadId })
    .from(workloadVersions)
    .where(and(eq(workloadVersions.orgId, orgId), eq(workloadVersions.id, versionId)));
  return version ?? null;
}

export async function promoteVersion(tx: Tx, orgId: string, workloadId: string, versionId: string): Promise<void> {
  await tx
    .update(workloadVersions)
    .set({ promotedAt: sql`now()` })
    .where(and(eq(workloadVersions.orgId, orgId), eq(workloadVersions.id, versionId)));
  await setCurrentVersion(tx, orgId, workloadId, versionId);
}

interface RunRow {
  id: string;
  env_id: string;
  workload_id: string;
  workload: string;
  archived: boolean;
  version_id: string;
  version: number;
  state: string;
  requested_at: Date;
  started_at: Date | null;
  deadline_at: Date;
  held: boolean;
  lease_expires_at: Date | null;
  claims: number;
  abandon_reason: string | null;
  ended_at: Date | null;
  retry_of: string | null;
  cancel_id: string | null;
  cancel_state: string | null;
  cancel_outcome: string | null;
  cancel_requested_at: Date | null;
}

const RUN = (orgId: string, runId: string) => sql`
SELECT r.id, r.env_id, r.workload_id, w.name AS workload, w.archived_at IS NOT NULL AS archived, r.version_id, v.number AS version,
       r.state, r.requested_at, r.started_at, r.deadline_at, r.state = 'accepted' AND r.lease_expires_at > now() AS held,
       r.lease_expires_at, r.claims, r.abandon_reason, r.ended_at, r.retry_of,
       c.id AS cancel_id, c.state AS cancel_state, c.outcome AS cancel_outcome, c.created_at AS cancel_requested_at
FROM workload_runs r JOIN workloads w ON w.id = r.workload_id JOIN workload_versions v ON v.id = r.version_id
LEFT JOIN LATERAL (
  SELECT id, state, outcome, created_at FROM runtime_commands c WHERE c.org_id = r.org_id AND c.run_id = r.id AND c.kind = 'cancel'
  ORDER BY c.created_at DESC LIMIT 1
) c ON true
WHERE r.org_id = ${orgId} AND r.id = ${runId}`;

/** One workload run as a person sees it: state, attempts, abandon reason, cancellation. Never the lease id. */
export async function findWorkloadRun(tx: Tx, orgId: string, runId: string) {
  const { rows } = await tx.execute<RunRow>(RUN(orgId, runId));
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    envId: row.env_id,
    workload: { id: row.workload_id, name: row.workload, archived: row.archived },
    version: { id: row.version_id, number: row.version },
    state: row.state,
    requestedAt: row.requested_at.toISOString(),
    startedAt: iso(row.started_at),
    deadline: row.deadline_at.toISOString(),
    lease: { held: row.held, expiresAt: iso(row.lease_expires_at) },
    /** How many times an engine claimed it (each claim is an attempt). */
    attempts: row.claims,
    abandonReason: row.abandon_reason,
    endedAt: iso(row.ended_at),
    retryOf: row.retry_of,
    cancel: row.cancel_id
      ? { commandId: row.cancel_id, state: row.cancel_state, outcome: row.cancel_outcome, requestedAt: row.cancel_requested_at!.toISOString() }
      : null,
  };
}

export type CancelResult =
  | { kind: "cancelled" }
  | { kind: "command"; commandId: string; existing: boolean }
  | { kind: "ended"; state: string }
  | { kind: "missing" };

/**
 * A requested run ends at once (nothing holds it). An accepted run gets a durable cancel command the
 * engine claims through POST /v1/commands/claim; it ends when the engine's workload.cancelled arrives.
 */
export async function cancelRun(tx: Tx, orgId: string, runId: string): Promise<CancelResult> {
  const thisRun = and(eq(workloadRuns.orgId, orgId), eq(workloadRuns.id, runId));
  const ended = await tx
    .update(workloadRuns)
    .set({ state: "cancelled", endedAt: sql`now()`, leaseExpiresAt: null })
    .where(and(thisRun, eq(workloadRuns.state, "requested")))
    .returning({ id: workloadRuns.id });
  if (ended.length > 0) return { kind: "cancelled" };
  const [run] = await tx.select({ state: workloadRuns.state, envId: workloadRuns.envId }).from(workloadRuns).where(thisRun).for("update");
  if (!run) return { kind: "missing" };
  if (run.state !== "accepted") return { kind: "ended", state: run.state };
  const [waiting] = await tx
    .select({ id: runtimeCommands.id })
    .from(runtimeCommands)
    .where(
      and(eq(runtimeCommands.orgId, orgId), eq(runtimeCommands.runId, runId), eq(runtimeCommands.kind, "cancel"), ne(runtimeCommands.state, "acknowledged")),
    )
    .orderBy(runtimeCommands.createdAt)
    .limit(1);
  if (waiting) return { kind: "command", commandId: waiting.id, existing: true };
  return { kind: "command", commandId: await enqueueCommand(tx, orgId, { envId: run.envId, kind: "cancel", runId }), existing: false };
}
