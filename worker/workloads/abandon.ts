// Runs past their deadline become abandoned, recording which silence it was. One statement serves
// the environment's Durable Object alarm (one environment, application role) and the Cron backstop
// (every organization, maintenance role); both are compare-and-sets on state and the database clock.
import type { SqlClient } from "../../db/sql-client";

const ABANDON = (scope: string) => `
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

export async function abandonOverdueInEnvironment(sql: SqlClient, orgId: string, envId: string): Promise<number> {
  const { rows } = await sql.query(ABANDON("AND org_id = $1 AND env_id = $2"), [orgId, envId]);
  return rows.length;
}

export async function abandonOverdueEverywhere(sql: SqlClient): Promise<number> {
  const { rows } = await sql.query(ABANDON(""));
  return rows.length;
}

/** The select of an environment's earliest deadline of a waiting or held run, for the SQL expressions naming the organization and the environment. */
export const NEXT_DEADLINE = (orgId: string, envId: string) =>
  `SELECT min(deadline_at) AS next FROM workload_runs WHERE org_id = ${orgId} AND env_id = ${envId} AND state IN ('requested', 'accepted')`;

/** When the environment's next deadline falls (epoch ms), or null when no run is waiting or held. */
export async function nextDeadline(sql: SqlClient, orgId: string, envId: string): Promise<number | null> {
  const { rows } = await sql.query<{ next: Date | null }>(NEXT_DEADLINE("$1", "$2"), [orgId, envId]);
  return rows[0]?.next?.getTime() ?? null;
}
