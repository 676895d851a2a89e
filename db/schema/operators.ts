import { sql } from "drizzle-orm";
import { bigint, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

export const operators = pgTable(
  "operators",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    login: text("login").notNull(),
    passwordHash: text("password_hash").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    passwordChangedAt: timestamp("password_changed_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("operators_login").on(sql`lower(${t.login})`)],
);

export const operatorSessions = pgTable(
  "operator_sessions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    operatorId: uuid("operator_id")
      .notNull()
      .references(() => operators.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique("operator_sessions_token_hash_key"),
    clientAddress: text("client_address"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
    signedOutAt: timestamp("signed_out_at", { withTimezone: true }),
  },
  (t) => [index("operator_sessions_operator").on(t.operatorId)],
);

export const failureGroups = pgTable(
  "failure_groups",
  {
    fingerprint: text("fingerprint").primaryKey(),
    code: text("code").notNull(),
    route: text("route").notNull(),
    errorType: text("error_type").notNull(),
    sample: jsonb("sample").notNull(),
    occurrences: bigint("occurrences", { mode: "number" }).notNull(),
    firstSeenAt: timestamp("first_seen_at", { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
    lastWrittenAt: timestamp("last_written_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("failure_groups_last_seen").on(t.lastSeenAt)],
);
