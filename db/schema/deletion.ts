import { sql } from "drizzle-orm";
import { bigint, integer, pgPolicy, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { DELETION_STEPS } from "../enums";
import { organizations } from "./organizations";
import { people } from "./people";
import { tenantPolicies } from "./policies";

export const deletions = pgTable(
  "deletions",
  {
    orgId: uuid("org_id")
      .primaryKey()
      .references(() => organizations.id, { onDelete: "cascade" }),
    requestedBy: uuid("requested_by").references(() => people.id, { onDelete: "set null" }),
    requestedAt: timestamp("requested_at", { withTimezone: true }).notNull().defaultNow(),
    step: text("step", { enum: DELETION_STEPS }).notNull().default("stop"),
    calledOffAt: timestamp("called_off_at", { withTimezone: true }),
    waitUntil: timestamp("wait_until", { withTimezone: true }),
    cancelledSubscriptions: text("cancelled_subscriptions").array().notNull().default([]),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    lastError: text("last_error"),
    exportTokenHash: text("export_token_hash").notNull(),
    /** The Delete step's progress: rows removed so far (worker/deletion/batches.ts). */
    rowsRemoved: bigint("rows_removed", { mode: "number" }).notNull().default(0),
  },
  () => [
    ...tenantPolicies(),
    pgPolicy("maintenance_due", { for: "select", to: "svc_maintenance", using: sql`called_off_at IS NULL AND next_attempt_at <= now()` }),
    pgPolicy("maintenance_progress", {
      for: "update",
      to: "svc_maintenance",
      using: sql`step = 'delete' AND called_off_at IS NULL AND next_attempt_at <= now()`,
    }),
  ],
).enableRLS();

export const deletionSteps = pgTable(
  "deletion_steps",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    step: text("step").notNull(),
    doneAt: timestamp("done_at", { withTimezone: true }).notNull().defaultNow(),
    note: text("note").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.step] }), ...tenantPolicies()],
).enableRLS();

export const deletionExports = pgTable(
  "deletion_exports",
  {
    tokenHash: text("token_hash").primaryKey(),
    orgSlug: text("org_slug").notNull(),
    objectKey: text("object_key"),
    sizeBytes: bigint("size_bytes", { mode: "number" }),
    builtAt: timestamp("built_at", { withTimezone: true }),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    destroyedAt: timestamp("destroyed_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  () => [
    pgPolicy("issue", { for: "insert", withCheck: sql`true` }),
    pgPolicy("by_token", { using: sql`token_hash = app_lookup('deletion_export_hash')` }),
    pgPolicy("maintenance_expired", { for: "select", to: "svc_maintenance", using: sql`object_key IS NOT NULL AND expires_at <= now()` }),
    pgPolicy("maintenance_destroy", {
      for: "update",
      to: "svc_maintenance",
      using: sql`destroyed_at IS NULL AND object_key IS NOT NULL AND expires_at <= now()`,
      withCheck: sql`destroyed_at IS NOT NULL`,
    }),
  ],
).enableRLS();
