import { sql } from "drizzle-orm";
import { bigint, date, integer, pgPolicy, pgTable, primaryKey, uuid } from "drizzle-orm/pg-core";
import { people } from "./people";
import { operatorRead } from "./policies";

/** The website assistant's usage per person and UTC day (migrations/0027_assistant_usage.sql): the person's own rows only. */
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
  ],
).enableRLS();
