import { bigint, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { DELIVERY_OUTCOMES, DISPATCH_OUTCOMES } from "../enums";
import { installations, organizations } from "./organizations";
import { maintenanceDeletion, tenantPolicies } from "./policies";

export const installationRepositories = pgTable(
  "installation_repositories",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    installationId: uuid("installation_id")
      .notNull()
      .references(() => installations.id, { onDelete: "cascade" }),
    repositoryId: bigint("repository_id", { mode: "number" }).notNull(),
    fullName: text("full_name").notNull(),
    addedAt: timestamp("added_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.installationId, t.repositoryId] }), index("installation_repositories_org").on(t.orgId), ...tenantPolicies()],
).enableRLS();

export const workflowDispatches = pgTable(
  "workflow_dispatches",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    repository: text("repository").notNull(),
    workflow: text("workflow").notNull(),
    ref: text("ref").notNull(),
    inputs: jsonb("inputs").notNull().default({}),
    droppedInputs: text("dropped_inputs").array().notNull().default([]),
    outcome: text("outcome", { enum: DISPATCH_OUTCOMES }).notNull(),
    refusalStatus: integer("refusal_status"),
    refusal: text("refusal"),
    requestedAt: timestamp("requested_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("workflow_dispatches_org").on(t.orgId, t.requestedAt), ...tenantPolicies(), ...maintenanceDeletion()],
).enableRLS();

export const usedIdentityTokens = pgTable(
  "used_identity_tokens",
  {
    jti: text("jti").primaryKey(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("used_identity_tokens_expiry").on(t.expiresAt)],
);

export const codehostDeliveries = pgTable(
  "codehost_deliveries",
  {
    deliveryId: text("delivery_id").primaryKey(),
    event: text("event").notNull(),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
    outcome: text("outcome", { enum: DELIVERY_OUTCOMES }),
    bodySha256: text("body_sha256"),
  },
  (t) => [uniqueIndex("codehost_deliveries_body").on(t.bodySha256), index("codehost_deliveries_received").on(t.receivedAt)],
);
