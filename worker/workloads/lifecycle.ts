// A workload's life after it is defined: versions added (current, or exploratory until promoted),
// archived (no new runs, history kept); and a run's: read, cancelled, retried.
// A workload made before current versions were kept reads its latest version as current.
import type { Tx } from "../../db/transaction";
import { enqueueCommand } from "../commands/enqueue";

const iso = (date: Date | null) => date?.toISOString() ?? null;

export const CURRENT_VERSION = `COALESCE(w.current_version_id, (SELECT id FROM workload_versions l WHERE l.workload_id = w.id ORDER BY l.number DESC LIMIT 1))`;

interface WorkloadRow {
  id: string;
  name: string;
  created_at: Date;
  archived_at: Date | null;
  current_version_id: string;
}

export async function findWorkload(tx: Tx, orgId: string, workloadId: string, lock = false) {
  const { rows } = await tx.sql.query<WorkloadRow>(
    `SELECT w.id, w.name, w.created_at, w.archived_at, ${CURRENT_VERSION} AS current_version_id FROM workloads w
     WHERE w.org_id = $1 AND w.id = $2 ${lock ? "FOR UPDATE OF w" : ""}`,
    [orgId, workloadId],
  );
  return rows[0] ?? null;
}

/** One workload with every version, newest first, and which is current. */
export async function workloadDetail(tx: Tx, orgId: string, workloadId: string) {
  const workload = await findWorkload(tx, orgId, workloadId);
  if (!workload) return null;
  const { rows } = await tx.sql.query<{ id: string; number: number; exploratory: boolean; promoted_at: Date | null; created_at: Date; compiled: unknown }>(
    "SELECT id, number, exploratory, promoted_at, created_at, compiled FROM workload_versions WHERE org_id = $1 AND workload_id = $2 ORDER BY number DESC",
    [orgId, workloadId],
  );
  return {
    id: workload.id,
    name: workload.name,
    createdAt: workload.created_at.toISOString(),
    archivedAt: iso(workload.archived_at),
    currentVersionId: workload.current_version_id,
    versions: rows.map((v) => ({
      id: v.id,
      number: v.number,
      exploratory: v.exploratory,
      current: v.id === workload.current_version_id,
      promotedAt: iso(v.promoted_at),
      createdAt: v.created_at.toISOString(),
      compiled: v.compiled,
    })),
  };
}

/** The next version of a locked, live workload; current unless exploratory. */
export async function addVersion(tx: Tx, orgId: string, workloadId: string, compiled: Record<string, unknown>, exploratory: boolean) {
  const { rows } = await tx.sql.query<{ id: string; number: number }>(
    `INSERT INTO workload_versions (org_id, workload_id, number, compiled, exploratory)
     SELECT $1, $2, COALESCE(max(number), 0) + 1, $3, $4 FROM workload_versions WHERE workload_id = $2
     RETURNING id, number`,
    [orgId, workloadId, JSON.stringify(compiled), exploratory],
  );
  const version = rows[0]!;
  if (!exploratory) await tx.sql.query("UPDATE workloads SET current_version_id = $2 WHERE org_id = $1 AND id = $3", [orgId, version.id, workloadId]);
  return version;
}

export async function archiveWorkload(tx: Tx, orgId: string, workloadId: string): Promise<Date> {
  const { rows } = await tx.sql.query<{ archived_at: Date }>(
    "UPDATE workloads SET archived_at = COALESCE(archived_at, now()) WHERE org_id = $1 AND id = $2 RETURNING archived_at",
    [orgId, workloadId],
  );
  return rows[0]!.archived_at;
}

export async function findVersion(tx: Tx, orgId: string, versionId: string) {
  const { rows } = await tx.sql.query<{ id: string; number: number; exploratory: boolean; workload_id: string }>(
    "SELECT id, number, exploratory, workload_id FROM workload_versions WHERE org_id = $1 AND id = $2",
    [orgId, versionId],
  );
  return rows[0] ?? null;
}

export async function promoteVersion(tx: Tx, orgId: string, workloadId: string, versionId: string): Promise<void> {
  await tx.sql.query("UPDATE workload_versions SET promoted_at = now() WHERE org_id = $1 AND id = $2", [orgId, versionId]);
  await tx.sql.query("UPDATE workloads SET current_version_id = $2 WHERE org_id = $1 AND id = $3", [orgId, versionId, workloadId]);
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

const RUN = `
SELECT r.id, r.env_id, r.workload_id, w.name AS workload, w.archived_at IS NOT NULL AS archived, r.version_id, v.number AS version,
       r.state, r.requested_at, r.started_at, r.deadline_at, r.state = 'accepted' AND r.lease_expires_at > now() AS held,
       r.lease_expires_at, r.claims, r.abandon_reason, r.ended_at, r.retry_of,
       c.id AS cancel_id, c.state AS cancel_state, c.outcome AS cancel_outcome, c.created_at AS cancel_requested_at
FROM workload_runs r JOIN workloads w ON w.id = r.workload_id JOIN workload_versions v ON v.id = r.version_id
LEFT JOIN LATERAL (
  SELECT id, state, outcome, created_at FROM runtime_commands c WHERE c.org_id = r.org_id AND c.run_id = r.id AND c.kind = 'cancel'
  ORDER BY c.created_at DESC LIMIT 1
) c ON true
WHERE r.org_id = $1 AND r.id = $2`;

/** One workload run as a person sees it: state, attempts, abandon reason, cancellation. Never the lease id. */
export async function findWorkloadRun(tx: Tx, orgId: string, runId: string) {
  const { rows } = await tx.sql.query<RunRow>(RUN, [orgId, runId]);
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
  const ended = await tx.sql.query(
    "UPDATE workload_runs SET state = 'cancelled', ended_at = now(), lease_expires_at = NULL WHERE org_id = $1 AND id = $2 AND state = 'requested' RETURNING id",
    [orgId, runId],
  );
  if (ended.rows.length > 0) return { kind: "cancelled" };
  const { rows } = await tx.sql.query<{ state: string; env_id: string }>("SELECT state, env_id FROM workload_runs WHERE org_id = $1 AND id = $2 FOR UPDATE", [
    orgId,
    runId,
  ]);
  const run = rows[0];
  if (!run) return { kind: "missing" };
  if (run.state !== "accepted") return { kind: "ended", state: run.state };
  const waiting = await tx.sql.query<{ id: string }>(
    "SELECT id FROM runtime_commands WHERE org_id = $1 AND run_id = $2 AND kind = 'cancel' AND state <> 'acknowledged' ORDER BY created_at LIMIT 1",
    [orgId, runId],
  );
  if (waiting.rows[0]) return { kind: "command", commandId: waiting.rows[0].id, existing: true };
  return { kind: "command", commandId: await enqueueCommand(tx, orgId, { envId: run.env_id, kind: "cancel", runId }), existing: false };
}
