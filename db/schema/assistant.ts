import { sql } from "drizzle-orm";
import { bigint, date, index, integer, pgPolicy, pgTable, primaryKey, uuid } from "drizzle-orm/pg-core";
import { people } from "./people";
import { operatorRead } from "./policies";

/**
 * The website assistant's usage per person and UTC day (migrations/0027_assistant_usage.sql): the person's own rows only;
 * the sweep deletes days older than 35 (0033_assistant_usage_prune.sql).
 */
export const assistantUsage = pgTable(
  "assistant_usage",
  {
    personId: uuid("person_id")
      .notNull()
      .references(() => people.id, { onDelete: "cascade" }),
    day: date("day").notNull(),
    requests: integer("requests").notNull().default(0),
    usedTokens: bigint("used_tokens", { mode: "number" }).notNull().default(0),
    reservedTokens: bigint("reserved_tokens", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.personId, t.day] }),
    pgPolicy("own", { using: sql`person_id = app_lookup('person_id')::uuid`, withCheck: sql`person_id = app_lookup('person_id')::uuid` }),
    operatorRead(),
    index("assistant_usage_day").on(t.day),
    // The sweep deletes the days older than 35 before today, UTC (worker/assistant/prune.ts).
    pgPolicy("maintenance_old_days", { to: "svc_maintenance", using: sql`day < (now() AT TIME ZONE 'UTC')::date - 35` }),
  ],
).enableRLS();
