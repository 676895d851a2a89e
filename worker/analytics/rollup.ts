// The daily rollup (Cron Trigger, worker/scheduled.ts) as the maintenance role, the one role that
// reads the beacon's stream: raw beacon events and the control plane's own usage (sign-ups,
// organizations created, active organizations, environments, runs) become daily aggregates over the
// working set (98 days); organizations enter weekly retention cohorts under a keyed pseudonym; raw
// beacon events older than SVC_ANALYTICS_RETENTION_DAYS are deleted, aggregates kept. Idempotent:
// each run recomputes the days it can still see whole.
import { and, gte, like, lt, type SQL, sql } from "drizzle-orm";
import { analyticsDaily, analyticsRollupState } from "../../db/schema/analytics";
import { organizations } from "../../db/schema/organizations";
import { siteEventRejects, siteEvents } from "../../db/schema/site";
import type { Db } from "../../db/transaction";
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

const utc = (column: SQL) => sql`(${column} AT TIME ZONE 'UTC')::date`;
const receivedDay = utc(sql`received_at`);
const createdDay = utc(sql`created_at`);

// from, end: the first day and the day after the last, as timestamptz.
const SITE_AGGREGATES = (from: string, end: string) => sql`
WITH ev AS (SELECT ${receivedDay} AS day, name, channel, session_key FROM site_events WHERE received_at >= ${from} AND received_at < ${end}),
     rj AS (SELECT ${receivedDay} AS day, reason FROM site_event_rejects WHERE received_at >= ${from} AND received_at < ${end})
INSERT INTO analytics_daily (day, metric, dimension, value)
SELECT day, 'site.' || name, '', count(*) FROM ev GROUP BY day, name
UNION ALL SELECT day, 'site.page_landed', channel, count(*) FROM ev WHERE name = 'page_landed' GROUP BY day, channel
UNION ALL SELECT day, 'site.sessions_landed', '', count(DISTINCT session_key) FROM ev WHERE name = 'page_landed' GROUP BY day
UNION ALL SELECT day, 'site.sessions_signup', '', count(DISTINCT session_key) FROM ev WHERE name = 'signup_reached' GROUP BY day
UNION ALL SELECT day, 'site.refused', reason, count(*) FROM rj WHERE reason <> 'duplicate' GROUP BY day, reason
UNION ALL SELECT day, 'site.refused', '', count(*) FROM rj WHERE reason <> 'duplicate' GROUP BY day
UNION ALL SELECT day, 'site.duplicates', '', count(*) FROM rj WHERE reason = 'duplicate' GROUP BY day`;

const USAGE_AGGREGATES = (from: string, end: string) => sql`
WITH engine AS (
  SELECT org_id, type, ${utc(sql`occurred_at`)} AS day FROM events WHERE occurred_at >= ${from} AND occurred_at < ${end}
), first_environments AS (
  SELECT org_id, min(created_at) AS first_at FROM environments GROUP BY org_id
)
INSERT INTO analytics_daily (day, metric, dimension, value)
SELECT ${createdDay}, 'usage.signups', '', count(*) FROM people WHERE created_at >= ${from} AND created_at < ${end} GROUP BY 1
UNION ALL SELECT ${createdDay}, 'usage.organizations_created', '', count(*) FROM organizations WHERE created_at >= ${from} AND created_at < ${end} GROUP BY 1
UNION ALL SELECT ${createdDay}, 'usage.environments', '', count(*) FROM environments WHERE created_at >= ${from} AND created_at < ${end} GROUP BY 1
UNION ALL SELECT ${utc(sql`first_at`)}, 'usage.first_environments', '', count(*) FROM first_environments WHERE first_at >= ${from} AND first_at < ${end} GROUP BY 1
UNION ALL SELECT day, 'usage.runs', '', count(*) FROM engine WHERE type IN ('run.started', 'workload.started') GROUP BY day
UNION ALL SELECT day, 'usage.active_organizations', '', count(DISTINCT org_id) FROM engine GROUP BY day`;

const ACTIVE_WEEKS = (from: string, end: string) => sql`
SELECT DISTINCT org_id, date_trunc('week', ${utc(sql`occurred_at`)})::date::text AS week FROM events WHERE occurred_at >= ${from} AND occurred_at < ${end}`;

/** The daily rows of one metric family (`site.%`, `usage.%`) from `from` to the day before `end`. */
const dailyRows = (family: string, from: Date, end: Date) =>
  and(like(analyticsDaily.metric, family), gte(analyticsDaily.day, isoDay(from)), lt(analyticsDaily.day, isoDay(end)));

/** Runs in one transaction on `db` (the maintenance role's own connection). */
export async function rollUpAnalytics(db: Db, { at, surrogateSecret, retentionDays }: RollupOptions): Promise<RollupReport> {
  const today = utcDay(at);
  const from = addDays(today, -(WORKING_SET_DAYS - 1));
  const end = addDays(today, 1);
  // Raw events received before the cutoff are deleted by this run: only days after it are still whole.
  const cutoff = retentionDays === null ? null : new Date(at.getTime() - retentionDays * DAY_MS);

  await db.execute(sql`BEGIN`);
  try {
    // Raw events deleted by an earlier run (under another retention) are gone whatever the setting now.
    const state = await db.select({ rawWholeFrom: analyticsRollupState.rawWholeFrom }).from(analyticsRollupState).for("update");
    const wholeFrom = [cutoff, state[0]?.rawWholeFrom ?? null].reduce<Date | null>((a, b) => (a === null ? b : b === null ? a : b > a ? b : a), null);
    const firstWholeDay = wholeFrom === null ? from : utcDay(wholeFrom).getTime() === wholeFrom.getTime() ? wholeFrom : addDays(utcDay(wholeFrom), 1);
    const siteFrom = firstWholeDay > from ? firstWholeDay : from;
    await db.delete(analyticsDaily).where(dailyRows("site.%", siteFrom, end));
    if (siteFrom < end) await db.execute(SITE_AGGREGATES(siteFrom.toISOString(), end.toISOString()));
    await db.delete(analyticsDaily).where(dailyRows("usage.%", from, end));
    await db.execute(USAGE_AGGREGATES(from.toISOString(), end.toISOString()));

    // Cohorts: organizations created in the working set, and the weeks they were active in it.
    const key = (orgId: string) => pseudonym(surrogateSecret, orgId);
    const created = await db
      .select({ id: organizations.id, week: sql<string>`date_trunc('week', (${organizations.createdAt} AT TIME ZONE 'UTC'))::date::text` })
      .from(organizations)
      .where(and(gte(organizations.createdAt, from), lt(organizations.createdAt, end)));
    if (created.length > 0) {
      const keys = await Promise.all(created.map((row) => key(row.id)));
      await db.execute(
        sql`INSERT INTO analytics_org_cohorts (org_key, cohort_week) SELECT * FROM unnest(${sql.param(keys)}::text[], ${sql.param(created.map((row) => row.week))}::date[]) ON CONFLICT (org_key) DO NOTHING`,
      );
    }
    const weekStart = weekOf(from);
    const active = (await db.execute<{ org_id: string; week: string }>(ACTIVE_WEEKS(weekStart.toISOString(), end.toISOString()))).rows;
    if (active.length > 0) {
      const keys = await Promise.all(active.map((row) => key(row.org_id)));
      await db.execute(
        sql`INSERT INTO analytics_org_active_weeks (org_key, week) SELECT * FROM unnest(${sql.param(keys)}::text[], ${sql.param(active.map((row) => row.week))}::date[]) ON CONFLICT DO NOTHING`,
      );
    }

    let deletedEvents = 0;
    if (cutoff !== null) {
      deletedEvents = (await db.execute(db.delete(siteEvents).where(lt(siteEvents.receivedAt, cutoff)))).rowCount ?? 0;
      await db.delete(siteEventRejects).where(lt(siteEventRejects.receivedAt, cutoff));
      await db
        .insert(analyticsRollupState)
        .values({ rawWholeFrom: cutoff })
        .onConflictDoUpdate({
          target: analyticsRollupState.singleton,
          set: { rawWholeFrom: sql`greatest(${analyticsRollupState.rawWholeFrom}, excluded.raw_whole_from)` },
        });
    }
    await db.execute(sql`COMMIT`);
    return { from: isoDay(from), to: isoDay(today), siteFrom: isoDay(siteFrom), organizationsInCohorts: created.length, deletedEvents };
  } catch (error) {
    await db.execute(sql`ROLLBACK`).catch(() => {});
    throw error;
  }
}
