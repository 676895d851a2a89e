import { bigint, doublePrecision, index, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { ENVIRONMENT_STATES } from "../enums";
import { organizations } from "./organizations";
import { maintenanceRollup, tenantPolicies } from "./policies";

export const environments = pgTable(
  "environments",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    envId: text("env_id").notNull(),
    repository: text("repository").notNull(),
    branch: text("branch"),
    pullRequest: integer("pull_request"),
    state: text("state", { enum: ENVIRONMENT_STATES }).notNull(),
    lastSequence: bigint("last_sequence", { mode: "number" }),
    lastEventAt: timestamp("last_event_at", { withTimezone: true }).notNull(),
    startedAt: timestamp("started_at", { withTimezone: true }),
    ttlSeconds: doublePrecision("ttl_seconds"),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    previewUrls: text("preview_urls").array().notNull().default([]),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.envId] }),
    index("environments_recent").on(t.orgId, t.lastEventAt, t.envId),
    ...tenantPolicies(),
    maintenanceRollup(),
  ],
).enableRLS();
