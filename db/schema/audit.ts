import { bigint, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { organizations } from "./organizations";
import { people } from "./people";
import { maintenanceDeletion, tenantPolicies } from "./policies";

export const auditLog = pgTable(
  "audit_log",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    seq: bigint("seq", { mode: "number" }).notNull(),
    action: text("action").notNull(),
    actorPersonId: uuid("actor_person_id").references(() => people.id, { onDelete: "set null" }),
    actorLabel: text("actor_label").notNull(),
    target: text("target"),
    data: jsonb("data").$type<Record<string, unknown>>().notNull().default({}),
    prevHash: text("prev_hash"),
    hash: text("hash").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.seq] }), ...tenantPolicies(), ...maintenanceDeletion()],
).enableRLS();
