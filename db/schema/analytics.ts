import { sql } from "drizzle-orm";
import { bigint, boolean, date, pgPolicy, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";

export const analyticsDaily = pgTable(
  "analytics_daily",
  {
    day: date("day").notNull(),
    metric: text("metric").notNull(),
    dimension: text("dimension").notNull().default(""),
    value: bigint("value", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.day, t.metric, t.dimension] })],
);

export const analyticsOrgCohorts = pgTable("analytics_org_cohorts", {
  orgKey: text("org_key").primaryKey(),
  cohortWeek: date("cohort_week").notNull(),
});

export const analyticsOrgActiveWeeks = pgTable(
  "analytics_org_active_weeks",
  {
    orgKey: text("org_key").notNull(),
    week: date("week").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgKey, t.week] })],
);

export const analyticsRollupState = pgTable("analytics_rollup_state", {
  singleton: boolean("singleton").primaryKey().default(true),
  rawWholeFrom: timestamp("raw_whole_from", { withTimezone: true }).notNull(),
});

export const analyticsOperatorPins = pgTable(
  "analytics_operator_pins",
  {
    slug: text("slug").primaryKey(),
    operatorOrg: uuid("operator_org").notNull(),
    pinnedAt: timestamp("pinned_at", { withTimezone: true }).notNull().defaultNow(),
  },
  () => [
    pgPolicy("by_slug", { for: "select", using: sql`slug = app_lookup('org_slug')` }),
    pgPolicy("pin", { for: "insert", withCheck: sql`slug = app_lookup('org_slug')` }),
  ],
).enableRLS();
