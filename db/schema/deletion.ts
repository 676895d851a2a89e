import { bigint, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { DELETION_STEPS } from "../enums";
import { organizations } from "./organizations";
import { people } from "./people";

export const deletions = pgTable("deletions", {
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
});

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
  (t) => [primaryKey({ columns: [t.orgId, t.step] })],
);

export const deletionExports = pgTable("deletion_exports", {
  tokenHash: text("token_hash").primaryKey(),
  orgSlug: text("org_slug").notNull(),
  objectKey: text("object_key"),
  sizeBytes: bigint("size_bytes", { mode: "number" }),
  builtAt: timestamp("built_at", { withTimezone: true }),
  expiresAt: timestamp("expires_at", { withTimezone: true }),
  destroyedAt: timestamp("destroyed_at", { withTimezone: true }),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});
