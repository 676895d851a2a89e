// What the analytics dashboard shows (analytics.overview), read from the daily aggregates and the
// weekly cohorts the rollup keeps: totals, a daily series, the funnel from landing to sign-up to first
// environment, and weekly retention cohorts over 12 weeks, where a cell is a percentage only over at
// least 5 organizations and a count otherwise.
import { and, count, countDistinct, eq, gte, lte, sql } from "drizzle-orm";
import { analyticsDaily, analyticsOrgActiveWeeks, analyticsOrgCohorts } from "../../db/schema/analytics";
import type { Tx } from "../../db/transaction";
import { COHORT_MIN_FOR_PERCENT, COHORT_WEEKS } from "./catalog";
import { addDays, isoDay, utcDay, weekOf } from "./days";

export const OVERVIEW_DAYS = [7, 28, 90] as const;
export type OverviewDays = (typeof OVERVIEW_DAYS)[number];

/** The series' and totals' fields, each the sum of one daily metric. */
const SERIES = {
  pagesLanded: "site.page_landed",
  signupsReached: "site.signup_reached",
  contactRequests: "site.contact_requested",
  signups: "usage.signups",
  organizationsCreated: "usage.organizations_created",
  activeOrganizations: "usage.active_organizations",
  environments: "usage.environments",
  runs: "usage.runs",
} as const;
type SeriesField = keyof typeof SERIES;
export type DayPoint = { day: string } & Record<SeriesField, number>;

export type RetentionCell = { week: number; kind: "percent" | "count"; value: number };

export interface Overview {
  days: OverviewDays;
  from: string;
  to: string;
  totals: Record<SeriesField | "sessionsLanded" | "sessionsSignup" | "refused" | "duplicates" | "firstEnvironments", number>;
  series: DayPoint[];
  channels: Array<{ channel: string; pagesLanded: number }>;
  funnel: Array<{ step: "landed" | "signup" | "first_environment"; count: number }>;
  retention: { weeks: number; minimumForPercent: number; cohorts: Array<{ week: string; organizations: number; cells: RetentionCell[] }> };
}

/** A retention cell: a percentage of the cohort only when it has at least 5 organizations. */
export const retentionCell = (week: number, active: number, cohortSize: number): RetentionCell =>
  cohortSize >= COHORT_MIN_FOR_PERCENT ? { week, kind: "percent", value: Math.round((active / cohortSize) * 100) } : { week, kind: "count", value: active };

export async function readOverview(tx: Tx, days: OverviewDays, now: Date = new Date()): Promise<Overview> {
  const today = utcDay(now);
  const from = addDays(today, -(days - 1));
  const rows = await tx
    .select({ day: analyticsDaily.day, metric: analyticsDaily.metric, dimension: analyticsDaily.dimension, value: analyticsDaily.value })
    .from(analyticsDaily)
    .where(and(gte(analyticsDaily.day, isoDay(from)), lte(analyticsDaily.day, isoDay(today))));
  const series: DayPoint[] = Array.from({ length: days }, (_, index) => {
    const point = { day: isoDay(addDays(from, index)) } as DayPoint;
    for (const field of Object.keys(SERIES) as SeriesField[]) point[field] = 0;
    return point;
  });
  const byDay = new Map(series.map((point) => [point.day, point]));
  const sums = new Map<string, number>();
  const channels = new Map<string, number>();
  for (const row of rows) {
    const { value } = row;
    if (row.dimension === "") sums.set(row.metric, (sums.get(row.metric) ?? 0) + value);
    else if (row.metric === "site.page_landed") channels.set(row.dimension, (channels.get(row.dimension) ?? 0) + value);
    if (row.dimension !== "") continue;
    const field = (Object.keys(SERIES) as SeriesField[]).find((key) => SERIES[key] === row.metric);
    const point = byDay.get(row.day);
    if (field && point) point[field] += value;
  }
  const sum = (metric: string) => sums.get(metric) ?? 0;
  const totals = {
    ...(Object.fromEntries((Object.keys(SERIES) as SeriesField[]).map((field) => [field, sum(SERIES[field])])) as Record<SeriesField, number>),
    sessionsLanded: sum("site.sessions_landed"),
    sessionsSignup: sum("site.sessions_signup"),
    refused: sum("site.refused"),
    duplicates: sum("site.duplicates"),
    firstEnvironments: sum("usage.first_environments"),
  };
  // Organizations active on several days count once: distinct over the weeks the period touches.
  const [distinctActive] = await tx
    .select({ n: countDistinct(analyticsOrgActiveWeeks.orgKey) })
    .from(analyticsOrgActiveWeeks)
    .where(and(gte(analyticsOrgActiveWeeks.week, isoDay(weekOf(from))), lte(analyticsOrgActiveWeeks.week, isoDay(today))));
  totals.activeOrganizations = distinctActive?.n ?? 0;
  return {
    days,
    from: isoDay(from),
    to: isoDay(today),
    totals,
    series,
    channels: [...channels]
      .map(([channel, pagesLanded]) => ({ channel, pagesLanded }))
      .sort((a, b) => b.pagesLanded - a.pagesLanded || a.channel.localeCompare(b.channel)),
    funnel: [
      { step: "landed", count: totals.sessionsLanded },
      { step: "signup", count: totals.sessionsSignup },
      { step: "first_environment", count: totals.firstEnvironments },
    ],
    retention: await readRetention(tx, today),
  };
}

async function readRetention(tx: Tx, today: Date): Promise<Overview["retention"]> {
  const thisWeek = weekOf(today);
  const first = addDays(thisWeek, -7 * (COHORT_WEEKS - 1));
  const c = analyticsOrgCohorts;
  const a = analyticsOrgActiveWeeks;
  const inCohorts = and(gte(c.cohortWeek, isoDay(first)), lte(c.cohortWeek, isoDay(thisWeek)));
  const sizes = await tx.select({ cohort: c.cohortWeek, size: count() }).from(c).where(inCohorts).groupBy(c.cohortWeek);
  // The week of activity counted from the cohort's own (0).
  const weekIndex = sql<number>`((${a.week} - ${c.cohortWeek}) / 7)::int`.mapWith(Number);
  const active = await tx
    .select({ cohort: c.cohortWeek, k: weekIndex, active: count() })
    .from(c)
    .innerJoin(a, and(eq(a.orgKey, c.orgKey), gte(a.week, c.cohortWeek), lte(a.week, isoDay(thisWeek))))
    .where(inCohorts)
    .groupBy(c.cohortWeek, weekIndex);
  const sizeOf = new Map(sizes.map((row) => [row.cohort, row.size]));
  const activeOf = new Map(active.map((row) => [`${row.cohort} ${row.k}`, row.active]));
  const cohorts = Array.from({ length: COHORT_WEEKS }, (_, index) => {
    const week = isoDay(addDays(first, 7 * index));
    const organizations = sizeOf.get(week) ?? 0;
    // Week 0 is the cohort's own week; the newest cohort has only that one.
    const cells = Array.from({ length: COHORT_WEEKS - index }, (_, k) => retentionCell(k, activeOf.get(`${week} ${k}`) ?? 0, organizations));
    return { week, organizations, cells };
  });
  return { weeks: COHORT_WEEKS, minimumForPercent: COHORT_MIN_FOR_PERCENT, cohorts };
}
