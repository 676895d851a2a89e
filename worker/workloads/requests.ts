// Defining workloads and requesting runs: what the console procedures that define workloads and start
// runs call (definition-procedures.ts, procedures.ts).
import { eq, sql } from "drizzle-orm";
import { workloads } from "../../db/schema/workloads";
import type { Tx } from "../../db/transaction";
import { UNCLAIMED_SECONDS } from "./timing";

export async function defineWorkload(tx: Tx, orgId: string, name: string, compiled: Record<string, unknown>) {
  const { rows } = await tx.execute<{
    workload_id: string;
    version_id: string;
  }>(sql`WITH w AS (INSERT INTO workloads (org_id, name) VALUES (${orgId}, ${name}) RETURNING id)
     INSERT INTO workload_versions (org_id, workload_id, number, compiled) SELECT ${orgId}, id, 1, ${JSON.stringify(compiled)} FROM w
     RETURNING workload_id, id AS version_id`);
  const created = { workloadId: rows[0]!.workload_id, versionId: rows[0]!.version_id };
  // Version 1 is the current one (worker/workloads/lifecycle.ts: later versions, explorations).
  await tx.update(workloads).set({ currentVersionId: created.versionId }).where(eq(workloads.id, created.workloadId));
  return created;
}

/** A run waiting for an engine on the environment; abandoned if nothing claims it in time. */
/** `retryOf`: the run this one repeats (workloads.retryRun). */
export async function requestRun(tx: Tx, orgId: string, envId: string, versionId: string, retryOf: string | null = null): Promise<string> {
  const { rows } = await tx.execute<{ id: string }>(sql`INSERT INTO workload_runs (org_id, env_id, workload_id, version_id, deadline_at, retry_of)
     SELECT ${orgId}, ${envId}, workload_id, id, now() + make_interval(secs => ${UNCLAIMED_SECONDS}), ${retryOf} FROM workload_versions WHERE id = ${versionId}
     RETURNING id`);
  return rows[0]!.id;
}
