import { sql } from "drizzle-orm";
import { type AnyPgColumn, boolean, index, integer, jsonb, pgPolicy, pgTable, text, timestamp, unique, uuid } from "drizzle-orm/pg-core";
import { ABANDON_REASONS, RUNTIME_COMMAND_KINDS, RUNTIME_COMMAND_OUTCOMES, RUNTIME_COMMAND_STATES, WORKLOAD_RUN_STATES } from "../enums";
import { organizations } from "./organizations";
import { maintenanceActivity, tenantPolicies } from "./policies";

export const workloads = pgTable(
  "workloads",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    archivedAt: timestamp("archived_at", { withTimezone: true }),
    currentVersionId: uuid("current_version_id").references((): AnyPgColumn => workloadVersions.id),
  },
  (t) => [unique("workloads_org_id_name_key").on(t.orgId, t.name), ...tenantPolicies()],
).enableRLS();

export const workloadVersions = pgTable(
  "workload_versions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    workloadId: uuid("workload_id")
      .notNull()
      .references(() => workloads.id, { onDelete: "cascade" }),
    number: integer("number").notNull(),
    compiled: jsonb("compiled").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    exploratory: boolean("exploratory").notNull().default(false),
    promotedAt: timestamp("promoted_at", { withTimezone: true }),
  },
  (t) => [unique("workload_versions_workload_id_number_key").on(t.workloadId, t.number), ...tenantPolicies()],
).enableRLS();

export const workloadRuns = pgTable(
  "workload_runs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    envId: text("env_id").notNull(),
    workloadId: uuid("workload_id")
      .notNull()
      .references(() => workloads.id),
    versionId: uuid("version_id")
      .notNull()
      .references(() => workloadVersions.id),
    state: text("state", { enum: WORKLOAD_RUN_STATES }).notNull().default("requested"),
    requestedAt: timestamp("requested_at", { withTimezone: true }).notNull().defaultNow(),
    deadlineAt: timestamp("deadline_at", { withTimezone: true }).notNull(),
    leaseId: uuid("lease_id"),
    leaseIds: uuid("lease_ids").array().notNull().default([]),
    leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true }),
    holderTokenId: uuid("holder_token_id"),
    claims: integer("claims").notNull().default(0),
    lostHolderTriedToEnd: boolean("lost_holder_tried_to_end").notNull().default(false),
    abandonReason: text("abandon_reason", { enum: ABANDON_REASONS }),
    endedAt: timestamp("ended_at", { withTimezone: true }),
    endEventId: text("end_event_id"),
    startedAt: timestamp("started_at", { withTimezone: true }),
    // Set null: a batch of the Delete step may remove a run before its retry (migrations/0030).
    retryOf: uuid("retry_of").references((): AnyPgColumn => workloadRuns.id, { onDelete: "set null" }),
  },
  (t) => [
    index("workload_runs_deadline").on(t.deadlineAt).where(sql`state IN ('requested', 'accepted')`),
    index("workload_runs_env_deadline").on(t.orgId, t.envId, t.deadlineAt).where(sql`state IN ('requested', 'accepted')`),
    index("workload_runs_claimable").on(t.orgId, t.envId, t.requestedAt, t.id).where(sql`state = 'requested'`),
    index("workload_runs_leases").on(t.orgId, t.envId, t.leaseExpiresAt).where(sql`state = 'accepted'`),
    // The held runs in the claim's order: a lapsed lease looked for without a sort (migrations/0047).
    index("workload_runs_held").on(t.orgId, t.envId, t.requestedAt, t.id).where(sql`state = 'accepted'`),
    // A retried claim's look-up of the run its lease id holds (migrations/0039).
    index("workload_runs_lease").on(t.leaseId).where(sql`state = 'accepted'`),
    index("workload_runs_requested").on(t.orgId, t.requestedAt, t.id),
    index("workload_runs_env_requested").on(t.orgId, t.envId, t.requestedAt, t.id),
    index("workload_runs_org").on(t.orgId, t.id),
    index("workload_runs_retry_of").on(t.retryOf).where(sql`retry_of IS NOT NULL`),
    ...tenantPolicies(),
    pgPolicy("maintenance_sweep_read", { for: "select", to: "svc_maintenance", using: sql`deadline_at < now()` }),
    maintenanceActivity(sql`requested_at`),
    pgPolicy("maintenance_sweep", {
      for: "update",
      to: "svc_maintenance",
      using: sql`state IN ('requested', 'accepted') AND deadline_at < now()`,
      withCheck: sql`state = 'abandoned'`,
    }),
  ],
).enableRLS();

export const runtimeCommands = pgTable(
  "runtime_commands",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    envId: text("env_id").notNull(),
    kind: text("kind", { enum: RUNTIME_COMMAND_KINDS }).notNull(),
    runId: uuid("run_id").references(() => workloadRuns.id),
    state: text("state", { enum: RUNTIME_COMMAND_STATES }).notNull().default("waiting"),
    leaseId: uuid("lease_id"),
    leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true }),
    holderTokenId: uuid("holder_token_id"),
    outcome: text("outcome", { enum: RUNTIME_COMMAND_OUTCOMES }),
    message: text("message"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    acknowledgedAt: timestamp("acknowledged_at", { withTimezone: true }),
    confirmedAt: timestamp("confirmed_at", { withTimezone: true }),
  },
  (t) => [
    index("runtime_commands_env").on(t.orgId, t.envId, t.createdAt.desc()),
    index("runtime_commands_run").on(t.orgId, t.runId).where(sql`run_id IS NOT NULL`),
    // The foreign key's check on each workload run the Delete step removes (migrations/0030).
    index("runtime_commands_run_id").on(t.runId).where(sql`run_id IS NOT NULL`),
    index("runtime_commands_waiting").on(t.orgId, t.createdAt).where(sql`state <> 'acknowledged'`),
    ...tenantPolicies(),
  ],
).enableRLS();
