import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { RUN_OUTCOMES, VERDICTS } from "../enums";
import { organizations } from "./organizations";
import { maintenanceActivity, tenantPolicies } from "./policies";

export const engineRuns = pgTable(
  "engine_runs",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    runId: text("run_id").notNull(),
    seq: bigint("seq", { mode: "number" }).notNull().generatedAlwaysAsIdentity(),
    envId: text("env_id"),
    name: text("name"),
    runtime: text("runtime"),
    workloadRunId: uuid("workload_run_id"),
    startedAt: timestamp("started_at", { withTimezone: true }),
    startedEventId: text("started_event_id"),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    finishedEventId: text("finished_event_id"),
    outcome: text("outcome", { enum: RUN_OUTCOMES }),
    durationMs: bigint("duration_ms", { mode: "number" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.runId] }),
    index("engine_runs_env").on(t.orgId, t.envId, t.seq.desc()),
    index("engine_runs_runtime").on(t.orgId, t.runtime).where(sql`runtime IS NOT NULL`),
    // The overview's latest failures, by when they failed (migration 0049).
    index("engine_runs_failed").on(t.orgId, t.finishedAt.desc()).where(sql`outcome IN ('failed', 'errored')`),
    ...tenantPolicies(),
    maintenanceActivity(sql`finished_at`),
  ],
).enableRLS();

export const runVerdicts = pgTable(
  "run_verdicts",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    runId: text("run_id").notNull(),
    name: text("name").notNull(),
    verdict: text("verdict", { enum: VERDICTS }).notNull(),
    detail: text("detail"),
    recordedAt: timestamp("recorded_at", { withTimezone: true }).notNull(),
    eventId: text("event_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.runId, t.name] }), ...tenantPolicies(), maintenanceActivity(sql`recorded_at`)],
).enableRLS();

export const runArtifacts = pgTable(
  "run_artifacts",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    runId: text("run_id").notNull(),
    name: text("name").notNull(),
    sizeBytes: bigint("size_bytes", { mode: "number" }).notNull(),
    digest: text("digest").notNull(),
    location: text("location").notNull(),
    contentType: text("content_type"),
    storedAt: timestamp("stored_at", { withTimezone: true }).notNull(),
    eventId: text("event_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.runId, t.name] }), ...tenantPolicies()],
).enableRLS();

export const goldens = pgTable(
  "goldens",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    version: text("version").notNull(),
    digest: text("digest").notNull(),
    location: text("location"),
    runId: text("run_id"),
    envId: text("env_id"),
    publishedAt: timestamp("published_at", { withTimezone: true }).notNull(),
    eventId: text("event_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.name, t.version] }), index("goldens_run").on(t.orgId, t.runId).where(sql`run_id IS NOT NULL`), ...tenantPolicies()],
).enableRLS();

export const networkDecisions = pgTable(
  "network_decisions",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    eventId: text("event_id").notNull(),
    occurredAt: timestamp("occurred_at", { withTimezone: true }).notNull(),
    seq: bigint("seq", { mode: "number" }).notNull().generatedAlwaysAsIdentity(),
    envId: text("env_id"),
    runId: text("run_id"),
    host: text("host").notNull(),
    port: integer("port").notNull(),
    allowed: boolean("allowed").notNull(),
    rule: text("rule"),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.eventId, t.occurredAt] }), index("network_decisions_env").on(t.orgId, t.envId, t.seq.desc()), ...tenantPolicies()],
).enableRLS();

export const runtimes = pgTable(
  "runtimes",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    labels: text("labels").array().notNull().default([]),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }),
    removedAt: timestamp("removed_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("runtimes_live_name").on(t.orgId, t.name).where(sql`removed_at IS NULL`), ...tenantPolicies()],
).enableRLS();
