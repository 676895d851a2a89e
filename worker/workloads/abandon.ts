// Runs past their deadline become abandoned, recording which silence it was. One statement serves
// the environment's Durable Object alarm (one environment, application role) and the Cron backstop
// (every organization, maintenance role); both are compare-and-sets on state and the database clock.
import { and, eq, min, type SQL, sql } from "drizzle-orm";
import { workloadRuns } from "../../db/schema/workloads";
import type { Db } from "../../db/transaction";

const ABANDON = (scope: SQL) => sql`
UPDATE workload_runs SET
  state = 'abandoned',
  abandon_reason = CASE
    WHEN claims = 0 THEN 'never_claimed'
    WHEN claims = 1 THEN 'claimed_then_quiet'
    WHEN lost_holder_tried_to_end THEN 'changed_hands_first_engine_tried_to_end'
    ELSE 'changed_hands_then_quiet'
  END,
  lease_expires_at = NULL
WHERE state IN ('requested', 'accepted') AND deadline_at <= now() ${scope}
RETURNING id`;

export async function abandonOverdueInEnvironment(db: Db, orgId: string, envId: string): Promise<number> {
  const { rows } = await db.execute(ABANDON(sql`AND org_id = ${orgId} AND env_id = ${envId}`));
  return rows.length;
}

export async function abandonOverdueEverywhere(db: Db): Promise<number> {
  const { rows } = await db.execute(ABANDON(sql``));
  return rows.length;
}

/** When the environment's next deadline falls (epoch ms), or null when no run is waiting or held. */
export async function nextDeadline(db: Db, orgId: string, envId: string): Promise<number | null> {
  const [row] = await db
    .select({ next: min(workloadRuns.deadlineAt) })
    .from(workloadRuns)
    .where(and(eq(workloadRuns.orgId, orgId), eq(workloadRuns.envId, envId), sql`${workloadRuns.state} IN ('requested', 'accepted')`));
  return row?.next?.getTime() ?? null;
}
