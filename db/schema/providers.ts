import { sql } from "drizzle-orm";
import { bigint, date, pgPolicy, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { PROVIDERS } from "../enums";
import { organizations } from "./organizations";
import { bytea } from "./types";
import { people } from "./people";
import { tenantPolicies } from "./policies";

export const providerKeys = pgTable(
  "provider_keys",
  {
    id: uuid("id").primaryKey(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    provider: text("provider", { enum: PROVIDERS }).notNull(),
    keyVersion: text("key_version").notNull(),
    nonce: bytea("nonce").notNull(),
    ciphertext: bytea("ciphertext").notNull(),
    lastFour: text("last_four").notNull(),
    createdBy: uuid("created_by").references(() => people.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    resealedAt: timestamp("resealed_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("provider_keys_live").on(t.orgId, t.provider).where(sql`revoked_at IS NULL`),
    ...tenantPolicies(),
    pgPolicy("reseal_read", { for: "select", to: "svc_reseal", using: sql`true` }),
    pgPolicy("reseal_write", { for: "update", to: "svc_reseal", using: sql`true`, withCheck: sql`true` }),
  ],
).enableRLS();

export const providerBudgets = pgTable(
  "provider_budgets",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    provider: text("provider", { enum: PROVIDERS }).notNull(),
    monthlyCapMicros: bigint("monthly_cap_micros", { mode: "number" }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.provider] }),
    ...tenantPolicies(),
    pgPolicy("maintenance_activity", { for: "select", to: "svc_maintenance", using: sql`true` }),
  ],
).enableRLS();

export const providerSpend = pgTable(
  "provider_spend",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    provider: text("provider", { enum: PROVIDERS }).notNull(),
    month: date("month").notNull(),
    spentMicros: bigint("spent_micros", { mode: "number" }).notNull().default(0),
    reservedMicros: bigint("reserved_micros", { mode: "number" }).notNull().default(0),
    requests: bigint("requests", { mode: "number" }).notNull().default(0),
    overrunMicros: bigint("overrun_micros", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.provider, t.month] }),
    ...tenantPolicies(),
    pgPolicy("maintenance_activity", { for: "select", to: "svc_maintenance", using: sql`month = date_trunc('month', now() AT TIME ZONE 'UTC')::date` }),
  ],
).enableRLS();
