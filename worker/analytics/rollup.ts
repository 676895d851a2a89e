// The daily rollup (Cron Trigger, worker/scheduled.ts) as the maintenance role, the one role that
// reads the beacon's stream: raw beacon events and the control plane's own usage (sign-ups,
// organizations created, active organizations, environments, runs) become daily aggregates over the
// working set (98 days); organizations enter weekly retention cohorts under a keyed pseudonym; raw
// beacon events older than SVC_ANALYTICS_RETENTION_DAYS are deleted, aggregates kept. Idempotent:
// each run recomputes the days it can still see whole.
import type { SqlClient } from "../../db/sql-client";
import { pseudonym } from "./client";
import { WORKING_SET_DAYS } from "./catalog";
import { addDays, DAY_MS, isoDay, utcDay, weekOf } from "./days";

export interface RollupOptions {
  at: Date;
  surrogateSecret: string;
  /** Null: raw events are kept forever. */
  retentionDays: number | null;
}

export interface RollupReport {
  from: string;
  to: string;
  /** First day whose beacon aggregates were recomputed (earlier days' raw events may be gone). */
  siteFrom: string;
  organizationsInCohorts: number;
  deletedEvents: number;
}

const utc = (column: string) => `(${column} AT TIME ZONE 'UTC')::date`;

// $1, $2: the first day and the day after the last, as timestamptz.
const SITE_AGGREGATES = `
WITH ev AS (SELECT ${utc("received_at")} AS day, name, channel, session_key FROM site_events WHERE received_at >= $1 AND received_at < $2),
     rj AS (SELECT ${utc("received_at")} AS day, reason FROM site_event_rejects WHERE received_at >= $1 AND received_at < $2)
INSERT INTO analytics_daily (day, metric, dimension, value)
SELECT day, 'site.' || name, '', count(*) FROM ev GROUP BY day, name
UNION ALL SELECT day, 'site.page_landed', channel, count(*) FROM ev WHERE name = 'page_landed' GROUP BY day, channel
UNION ALL SELECT day, 'site.sessions_landed', '', count(DISTINCT session_key) FROM ev WHERE name = 'page_landed' GROUP BY day
UNION ALL SELECT day, 'site.sessions_signup', '', count(DISTINCT session_key) FROM ev WHERE name = 'signup_reached' GROUP BY day
UNION ALL SELECT day, 'site.refused', reason, count(*) FROM rj WHERE reason <> 'duplicate' GROUP BY day, reason
UNION ALL SELECT day, 'site.refused', '', count(*) FROM rj WHERE reason <> 'duplicate' GROUP BY day
UNION ALL SELECT day, 'site.duplicates', '', count(*) FROM rj WHERE reason = 'duplicate' GROUP BY day`;

const USAGE_AGGREGATES = `
WITH engine AS (
  SELECT org_id, type, ${utc("occurred_at")} AS day FROM events WHERE occurred_at >= $1 AND occurred_at < $2
), first_environments AS (
  SELECT org_id, min(created_at) AS first_at FROM environments GROUP BY org_id
)
INSERT INTO analytics_daily (day, metric, dimension, value)
SELECT ${utc("created_at")}, 'usage.signups', '', count(*) FROM people WHERE created_at >= $1 AND created_at < $2 GROUP BY 1
UNION ALL SELECT ${utc("created_at")}, 'usage.organizations_created', '', count(*) FROM organizations WHERE created_at >= $1 AND created_at < $2 GROUP BY 1
UNION ALL SELECT ${utc("created_at")}, 'usage.environments', '', count(*) FROM environments WHERE created_at >= $1 AND created_at < $2 GROUP BY 1
UNION ALL SELECT ${utc("first_at")}, 'usage.first_environments', '', count(*) FROM first_environments WHERE first_at >= $1 AND first_at < $2 GROUP BY 1
UNION ALL SELECT day, 'usage.runs', '', count(*) FROM engine WHERE type IN ('run.started', 'workload.started') GROUP BY day
UNION ALL SELECT day, 'usage.active_organizations', '', count(DISTINCT org_id) FROM engine GROUP BY day`;

const ACTIVE_WEEKS = `
SELECT DISTINCT org_id, date_trunc('week', ${utc("occurred_at")})::date::text AS week FROM events WHERE occurred_at >= $1 AND occurred_at < $2`;

/** Runs in one transaction on `sql` (the maintenance role). */
export async function rollUpAnalytics(sql: SqlClient, { at, surrogateSecret, retentionDays }: RollupOptions): Promise<RollupReport> {
  const today = utcDay(at);
  const from = addDays(today, -(WORKING_SET_DAYS - 1));
  const end = addDays(today, 1);
  // Raw events received before the cutoff are deleted by this run: only days after it are still whole.
  const cutoff = retentionDays === null ? null : new Date(at.getTime() - retentionDays * DAY_MS);

  await sql.query("BEGIN");
  try {
    // Raw events deleted by an earlier run (under another retention) are gone whatever the setting now.
    const state = await sql.query<{ raw_whole_from: Date }>("SELECT raw_whole_from FROM analytics_rollup_state FOR UPDATE");
    const wholeFrom = [cutoff, state.rows[0]?.raw_whole_from ?? null].reduce<Date | null>((a, b) => (a === null ? b : b === null ? a : b > a ? b : a), null);
    const firstWholeDay = wholeFrom === null ? from : utcDay(wholeFrom).getTime() === wholeFrom.getTime() ? wholeFrom : addDays(utcDay(wholeFrom), 1);
    const siteFrom = firstWholeDay > from ? firstWholeDay : from;
    await sql.query("DELETE FROM analytics_daily WHERE metric LIKE 'site.%' AND day >= $1::date AND day < $2::date", [isoDay(siteFrom), isoDay(end)]);
    if (siteFrom < end) await sql.query(SITE_AGGREGATES, [siteFrom.toISOString(), end.toISOString()]);
    await sql.query("DELETE FROM analytics_daily WHERE metric LIKE 'usage.%' AND day >= $1::date AND day < $2::date", [isoDay(from), isoDay(end)]);
    await sql.query(USAGE_AGGREGATES, [from.toISOString(), end.toISOString()]);

    // Cohorts: organizations created in the working set, and the weeks they were active in it.
    const key = (orgId: string) => pseudonym(surrogateSecret, orgId);
    const created = (
      await sql.query<{ id: string; week: string }>(
        "SELECT id, date_trunc('week', (created_at AT TIME ZONE 'UTC'))::date::text AS week FROM organizations WHERE created_at >= $1 AND created_at < $2",
        [from.toISOString(), end.toISOString()],
      )
    ).rows;
    if (created.length > 0) {
      const keys = await Promise.all(created.map((row) => key(row.id)));
      await sql.query(
        "INSERT INTO analytics_org_cohorts (org_key, cohort_week) SELECT * FROM unnest($1::text[], $2::date[]) ON CONFLICT (org_key) DO NOTHING",
        [keys, created.map((row) => row.week)],
      );
    }
    const weekStart = weekOf(from);
    const active = (await sql.query<{ org_id: string; week: string }>(ACTIVE_WEEKS, [weekStart.toISOString(), end.toISOString()])).rows;
    if (active.length > 0) {
      const keys = await Promise.all(active.map((row) => key(row.org_id)));
      await sql.query("INSERT INTO analytics_org_active_weeks (org_key, week) SELECT * FROM unnest($1::text[], $2::date[]) ON CONFLICT DO NOTHING", [
        keys,
        active.map((row) => row.week),
      ]);
    }

    let deletedEvents = 0;
    if (cutoff !== null) {
      deletedEvents = (await sql.query("DELETE FROM site_events WHERE received_at < $1", [cutoff.toISOString()])).rowCount ?? 0;
      await sql.query("DELETE FROM site_event_rejects WHERE received_at < $1", [cutoff.toISOString()]);
      await sql.query(
        `INSERT INTO analytics_rollup_state (raw_whole_from) VALUES ($1)
         ON CONFLICT (singleton) DO UPDATE SET raw_whole_from = greatest(analytics_rollup_state.raw_whole_from, excluded.raw_whole_from)`,
        [cutoff.toISOString()],
      );
    }
    await sql.query("COMMIT");
    return { from: isoDay(from), to: isoDay(today), siteFrom: isoDay(siteFrom), organizationsInCohorts: created.length, deletedEvents };
  } catch (error) {
    await sql.query("ROLLBACK").catch(() => {});
    throw error;
  }
}
