// A check across environments: each check (a verdict's name) that failed lately, with where it failed
// and where it passed, so a reviewer sees whether a failure is their change or something every
// environment shares (the console's Checks page).
import { sql } from "drizzle-orm";
import type { Tx } from "../../db/transaction";

/** At most this many checks, the most recently failed first. */
const CHECKS_SHOWN = 50;

interface Row {
  name: string;
  env_id: string;
  failures: number;
  passes: number;
  last_failed_at: Date | null;
  last_at: Date;
}

/**
 * The checks that failed at least once in the last `days` days, the most recently failed first, each
 * with its environments: how often it failed and passed there, and when it last failed.
 */
export async function checksAcrossEnvironments(tx: Tx, orgId: string, days: number) {
  const { rows } = await tx.execute<Row>(sql`
    WITH recent AS (
      SELECT v.name, r.env_id, v.verdict, v.recorded_at FROM run_verdicts v
      JOIN engine_runs r ON r.org_id = v.org_id AND r.run_id = v.run_id
      WHERE v.org_id = ${orgId} AND r.env_id IS NOT NULL AND v.recorded_at > now() - make_interval(days => ${days})
    ), failing AS (
      SELECT name, max(recorded_at) AS last_failed_at FROM recent WHERE verdict = 'fail'
      GROUP BY name ORDER BY last_failed_at DESC LIMIT ${CHECKS_SHOWN}
    )
    SELECT recent.name, recent.env_id,
           count(*) FILTER (WHERE recent.verdict = 'fail')::int AS failures,
           count(*) FILTER (WHERE recent.verdict = 'pass')::int AS passes,
           max(recent.recorded_at) FILTER (WHERE recent.verdict = 'fail') AS last_failed_at,
           max(failing.last_failed_at) AS last_at
    FROM recent JOIN failing USING (name)
    GROUP BY recent.name, recent.env_id
    ORDER BY last_at DESC, recent.name, failures DESC, recent.env_id`);
  const checks = new Map<
    string,
    { name: string; lastFailedAt: string; environments: Array<{ envId: string; failures: number; passes: number; lastFailedAt: string | null }> }
  >();
  for (const row of rows) {
    const check = checks.get(row.name) ?? checks.set(row.name, { name: row.name, lastFailedAt: row.last_at.toISOString(), environments: [] }).get(row.name)!;
    check.environments.push({ envId: row.env_id, failures: row.failures, passes: row.passes, lastFailedAt: row.last_failed_at?.toISOString() ?? null });
  }
  return { days, checks: [...checks.values()] };
}
