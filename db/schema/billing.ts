import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, pgPolicy, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { PLAN_CHANGE_SOURCES } from "../enums";
import { organizations } from "./organizations";
import { tenantPolicies } from "./policies";

export const billingCustomers = pgTable(
  "billing_customers",
  {
    orgId: uuid("org_id")
      .primaryKey()
      .references(() => organizations.id, { onDelete: "cascade" }),
    customerId: text("customer_id").notNull().unique("billing_customers_customer_id_key"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  () => [...tenantPolicies(), pgPolicy("by_customer", { for: "select", using: sql`customer_id = app_lookup('billing_customer')` })],
).enableRLS();

export const subscriptions = pgTable(
  "subscriptions",
  {
    subscriptionId: text("subscription_id").primaryKey(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    customerId: text("customer_id").notNull(),
    priceId: text("price_id"),
    status: text("status").notNull(),
    cancelAtPeriodEnd: boolean("cancel_at_period_end").notNull().default(false),
    currentPeriodEnd: timestamp("current_period_end", { withTimezone: true }),
    eventCreated: timestamp("event_created", { withTimezone: true }).notNull(),
    stateRank: integer("state_rank").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("subscriptions_org").on(t.orgId), ...tenantPolicies()],
).enableRLS();

export const billingHistory = pgTable(
  "billing_history",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    source: text("source", { enum: PLAN_CHANGE_SOURCES }).notNull(),
    eventId: text("event_id"),
    subscriptionId: text("subscription_id"),
    priceId: text("price_id"),
    status: text("status"),
    fromPlan: text("from_plan").notNull(),
    toPlan: text("to_plan").notNull(),
    note: text("note").notNull(),
  },
  (t) => [index("billing_history_org").on(t.orgId, t.id), ...tenantPolicies()],
).enableRLS();

export const billingDeliveries = pgTable(
  "billing_deliveries",
  {
    eventId: text("event_id").primaryKey(),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("billing_deliveries_received").on(t.receivedAt)],
);
