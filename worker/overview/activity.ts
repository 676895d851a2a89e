// The last 30 days of an organization (or one environment) for the console's charts: rolled up by
// the sweep every five minutes into activity_daily and spend_daily (migrations/0036), so a chart
// reads at most 30 rows an environment of the past, and only today's raw events, runs and verdicts.
import { type SQL, sql } from "drizzle-orm";
import type { Db, Tx } from "../../db/transaction";

/** Days a chart shows, today (UTC) included. */
export const ACTIVITY_DAYS = 30;
/** Days the rollup keeps: the chart's, and a margin. */
const KEPT_DAYS = 35;
const DAY_MS = 86_400_000;

const utcDay = (at: number) => new Date(at).toISOString().slice(0, 10);

/**
 * The day from `start` (UTC), counted from its rows by organization and environment, one part per
 * kind of row: what activity_daily keeps a row of. `only`: one organization's (and environment's).
 */
function dayCounts(start: number, only: { orgId: string; envId: string | null } | null): SQL {
  const from = new Date(start).toISOString();
  const to = new Date(start + DAY_MS).toISOString();
  const of = (org: SQL, env: SQL) => (only === null ? sql`` : sql`AND ${org} = ${only.orgId} ${only.envId === null ? sql`` : sql`AND ${env} = ${only.envId}`}`);
  return sql`
    SELECT org_id, coalesce(env_id, '') AS env_id, count(*) AS events, 0 AS passed, 0 AS failed, 0 AS other, 0 AS verdicts_failed, 0 AS workload_runs
      FROM events WHERE occurred_at >= ${from} AND occurred_at < ${to} ${of(sql`org_id`, sql`env_id`)} GROUP BY 1, 2
    UNION ALL
    SELECT org_id, coalesce(env_id, ''), 0, count(*) FILTER (WHERE outcome = 'passed'), count(*) FILTER (WHERE outcome = 'failed'),
           count(*) FILTER (WHERE outcome NOT IN ('passed', 'failed')), 0, 0
      FROM engine_runs WHERE finished_at >= ${from} AND finished_at < ${to} ${of(sql`org_id`, sql`env_id`)} GROUP BY 1, 2
    UNION ALL
    SELECT v.org_id, coalesce(r.env_id, ''), 0, 0, 0, 0, count(*), 0
      FROM run_verdicts v LEFT JOIN engine_runs r ON r.org_id = v.org_id AND r.run_id = v.run_id
      WHERE v.verdict = 'fail' AND v.recorded_at >= ${from} AND v.recorded_at < ${to} ${of(sql`v.org_id`, sql`r.env_id`)} GROUP BY 1, 2
    UNION ALL
    SELECT org_id, env_id, 0, 0, 0, 0, 0, count(*)
      FROM workload_runs WHERE requested_at >= ${from} AND requested_at < ${to} ${of(sql`org_id`, sql`env_id`)} GROUP BY 1, 2`;
}

/**
 * As the maintenance role, across organizations: yesterday's and today's counts (UTC) written again
 * from the rows of those days (a day's late rows are counted on the next pass), today's month-to-date
 * spend and budget per provider, and the days past KEPT_DAYS removed.
 */
export async function rollUpActivity(db: Db, now = Date.now()): Promise<{ activityRows: number; spendRows: number; pruned: number }> {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  let activityRows = 0;
  for (const start of [today - DAY_MS, today]) {
    const { rowCount } = await db.execute(sql`
      INSERT INTO activity_daily (org_id, env_id, day, events, runs_passed, runs_failed, runs_other, verdicts_failed, workload_runs)
      SELECT org_id, env_id, ${utcDay(start)}::date, sum(events), sum(passed), sum(failed), sum(other), sum(verdicts_failed), sum(workload_runs)
      FROM (${dayCounts(start, null)}) AS parts
      GROUP BY org_id, env_id
      ON CONFLICT (org_id, day, env_id) DO UPDATE SET
        events = EXCLUDED.events, runs_passed = EXCLUDED.runs_passed, runs_failed = EXCLUDED.runs_failed, runs_other = EXCLUDED.runs_other,
        verdicts_failed = EXCLUDED.verdicts_failed, workload_runs = EXCLUDED.workload_runs`);
    activityRows += rowCount ?? 0;
  }
  const day = utcDay(today);
  const { rowCount: spendRows } = await db.execute(sql`
    INSERT INTO spend_daily (org_id, provider, day, month_to_date_micros, cap_micros)
    SELECT coalesce(s.org_id, b.org_id), coalesce(s.provider, b.provider), ${day}::date, coalesce(s.spent_micros, 0), b.monthly_cap_micros
    FROM (SELECT org_id, provider, spent_micros FROM provider_spend WHERE month = date_trunc('month', ${day}::date)::date) AS s
    FULL JOIN provider_budgets b ON b.org_id = s.org_id AND b.provider = s.provider
    ON CONFLICT (org_id, day, provider) DO UPDATE SET month_to_date_micros = EXCLUDED.month_to_date_micros, cap_micros = EXCLUDED.cap_micros`);
  const old = sql`${utcDay(today - KEPT_DAYS * DAY_MS)}::date`;
  const pruned =
    await db.execute(sql`WITH a AS (DELETE FROM activity_daily WHERE day < ${old} RETURNING 1), s AS (DELETE FROM spend_daily WHERE day < ${old} RETURNING 1)
    SELECT (SELECT count(*) FROM a) + (SELECT count(*) FROM s) AS n`);
  return { activityRows, spendRows: spendRows ?? 0, pruned: Number((pruned.rows[0] as { n: string | number }).n) };
}

export interface ActivityDay {
  day: string;
  events: number;
  runsPassed: number;
  runsFailed: number;
  runsOther: number;
  verdictsFailed: number;
  workloadRuns: number;
}

/**
 * The last ACTIVITY_DAYS days of the organization (or of `envId`), one entry a day, oldest first, zeros
 * where nothing happened: the past days from the rollup, today from its rows as they are now (the
 * rollup runs every five minutes; a chart must not say none while the rows are there).
 */
export async function activityDays(tx: Tx, orgId: string, envId: string | null, now = Date.now()): Promise<ActivityDay[]> {
  const days = lastDays(now);
  const today = days.at(-1)!;
  const { rows } = await tx.execute<{ day: string } & Record<"events" | "passed" | "failed" | "other" | "verdicts" | "workloads", number>>(sql`
    SELECT day::text AS day, sum(events)::int AS events, sum(runs_passed)::int AS passed, sum(runs_failed)::int AS failed, sum(runs_other)::int AS other,
           sum(verdicts_failed)::int AS verdicts, sum(workload_runs)::int AS workloads
    FROM activity_daily WHERE org_id = ${orgId} AND day >= ${days[0]}::date AND day < ${today}::date ${envId === null ? sql`` : sql`AND env_id = ${envId}`}
    GROUP BY day
    UNION ALL
    SELECT ${today}, coalesce(sum(events), 0)::int, coalesce(sum(passed), 0)::int, coalesce(sum(failed), 0)::int, coalesce(sum(other), 0)::int,
           coalesce(sum(verdicts_failed), 0)::int, coalesce(sum(workload_runs), 0)::int
    FROM (${dayCounts(Date.parse(today), { orgId, envId })}) AS parts`);
  const byDay = new Map(rows.map((row) => [row.day, row]));
  return days.map((day) => {
    const row = byDay.get(day);
    return {
      day,
      events: row?.events ?? 0,
      runsPassed: row?.passed ?? 0,
      runsFailed: row?.failed ?? 0,
      runsOther: row?.other ?? 0,
      verdictsFailed: row?.verdicts ?? 0,
      workloadRuns: row?.workloads ?? 0,
    };
  });
}

/** Month-to-date model spend (all providers) as the rollup saw it last each day, with the budgets then (null: no budget). */
export async function spendDays(tx: Tx, orgId: string, now = Date.now()): Promise<Array<{ day: string; spentMicros: number; budgetMicros: number | null }>> {
  const days = lastDays(now);
  const { rows } = await tx.execute<{ day: string; spent: string; budget: string | null }>(sql`
    SELECT day::text AS day, sum(month_to_date_micros)::text AS spent, sum(cap_micros)::text AS budget
    FROM spend_daily WHERE org_id = ${orgId} AND day >= ${days[0]}::date GROUP BY day`);
  const byDay = new Map(rows.map((row) => [row.day, row]));
  return days.map((day) => {
    const row = byDay.get(day);
    return { day, spentMicros: Number(row?.spent ?? 0), budgetMicros: row?.budget == null ? null : Number(row.budget) };
  });
}

const lastDays = (now: number) => {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  return Array.from({ length: ACTIVITY_DAYS }, (_, i) => utcDay(today - (ACTIVITY_DAYS - 1 - i) * DAY_MS));
};
