// The console's 30-day activity (migrations/0036_activity_daily.sql, worker/overview/activity.ts):
// rolled up by the sweep as the maintenance role, read by the console.
import { sql } from "drizzle-orm";
import { bigint, date, integer, pgPolicy, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { organizations } from "./organizations";
import { tenantPolicies } from "./policies";

const rollup = () => pgPolicy("maintenance_rollup", { to: "svc_maintenance", using: sql`true`, withCheck: sql`true` });

export const activityDaily = pgTable(
  "activity_daily",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** '' for events that name no environment. */
    envId: text("env_id").notNull(),
    day: date("day").notNull(),
    events: integer("events").notNull().default(0),
    runsPassed: integer("runs_passed").notNull().default(0),
    runsFailed: integer("runs_failed").notNull().default(0),
    runsOther: integer("runs_other").notNull().default(0),
    verdictsFailed: integer("verdicts_failed").notNull().default(0),
    workloadRuns: integer("workload_runs").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.day, t.envId] }), ...tenantPolicies(), rollup()],
).enableRLS();

export const spendDaily = pgTable(
  "spend_daily",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    provider: text("provider").notNull(),
    day: date("day").notNull(),
    monthToDateMicros: bigint("month_to_date_micros", { mode: "number" }).notNull(),
    capMicros: bigint("cap_micros", { mode: "number" }),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.day, t.provider] }), ...tenantPolicies(), rollup()],
).enableRLS();
