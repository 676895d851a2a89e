import { sql } from "drizzle-orm";
import { bigint, index, jsonb, pgPolicy, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { tenantPolicies } from "./policies";

// Partitioned by month of occurred_at (see db/migrations); the idempotency key includes it. The
// partitions are the maintenance role's and have no schema here.
export const events = pgTable(
  "events",
  {
    orgId: uuid("org_id").notNull(),
    id: text("id").notNull(),
    occurredAt: timestamp("occurred_at", { withTimezone: true }).notNull(),
    type: text("type").notNull(),
    envId: text("env_id"),
    sequence: bigint("sequence", { mode: "number" }),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull().default({}),
    tokenId: uuid("token_id"),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.id, t.occurredAt] }),
    index("events_env").on(t.orgId, t.envId, t.occurredAt),
    ...tenantPolicies(),
    pgPolicy("maintenance", { to: "svc_maintenance", using: sql`true`, withCheck: sql`true` }),
  ],
).enableRLS();
