// Defining workloads and requesting runs. The console procedures that start runs arrive later; until
// then these serve the tests, and they are what those procedures will call.
import type { Tx } from "../../db/transaction";
import { UNCLAIMED_SECONDS } from "./timing";

export async function defineWorkload(tx: Tx, orgId: string, name: string, compiled: Record<string, unknown>) {
  const { rows } = await tx.sql.query<{ workload_id: string; version_id: string }>(
    `WITH w AS (INSERT INTO workloads (org_id, name) VALUES ($1, $2) RETURNING id)
     INSERT INTO workload_versions (org_id, workload_id, number, compiled) SELECT $1, id, 1, $3 FROM w
     RETURNING workload_id, id AS version_id`,
    [orgId, name, JSON.stringify(compiled)],
  );
  const created = { workloadId: rows[0]!.workload_id, versionId: rows[0]!.version_id };
  // Version 1 is the current one (worker/workloads/lifecycle.ts: later versions, explorations).
  await tx.sql.query("UPDATE workloads SET current_version_id = $2 WHERE id = $1", [created.workloadId, created.versionId]);
  return created;
}

/** A run waiting for an engine on the environment; abandoned if nothing claims it in time. */
/** `retryOf`: the run this one repeats (workloads.retryRun). */
export async function requestRun(tx: Tx, orgId: string, envId: string, versionId: string, retryOf: string | null = null): Promise<string> {
  const { rows } = await tx.sql.query<{ id: string }>(
    `INSERT INTO workload_runs (org_id, env_id, workload_id, version_id, deadline_at, retry_of)
     SELECT $1, $2, workload_id, id, now() + make_interval(secs => $4), $5 FROM workload_versions WHERE id = $3
     RETURNING id`,
    [orgId, envId, versionId, UNCLAIMED_SECONDS, retryOf],
  );
  return rows[0]!.id;
}
