import { sql } from "drizzle-orm";
import { bigint, index, pgPolicy, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { PLANS, ROLES, ROLE_SOURCES } from "../enums";
import { people } from "./people";
import { maintenanceRollup, operatorRead, tenantPolicies } from "./policies";

export const organizations = pgTable(
  "organizations",
  {
    id: uuid("id").primaryKey(),
    slug: text("slug").notNull().unique("organizations_slug_key"),
    name: text("name").notNull(),
    plan: text("plan", { enum: PLANS }).notNull().default("free"),
    suspendedAt: timestamp("suspended_at", { withTimezone: true }),
    /** `operator` or `deletion`: which kind of suspension. */
    suspendedReason: text("suspended_reason"),
    /** An operator's suspension: why, in the operator's words (1-500 characters), shown to the members. */
    suspendedBecause: text("suspended_because"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** Until when a console may be watching it live (worker/live, migrations/0038). */
    watchedUntil: timestamp("watched_until", { withTimezone: true }),
  },
  () => [
    pgPolicy("tenant", { using: sql`id = app_org_id()`, withCheck: sql`id = app_org_id()` }),
    pgPolicy("by_slug", { for: "select", using: sql`slug = app_lookup('org_slug')` }),
    operatorRead(),
    pgPolicy("member", {
      for: "select",
      using: sql`EXISTS (SELECT 1 FROM memberships m WHERE m.org_id = organizations.id AND m.person_id = app_lookup('person_id')::uuid)`,
    }),
    maintenanceRollup(),
  ],
).enableRLS();

export const installations = pgTable(
  "installations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    codehostInstallationId: bigint("codehost_installation_id", { mode: "number" }).notNull().unique("installations_codehost_installation_id_key"),
    accountLogin: text("account_login").notNull(),
    accountId: bigint("account_id", { mode: "number" }).notNull(),
    suspendedAt: timestamp("suspended_at", { withTimezone: true }),
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("installations_account_id").on(t.accountId),
    index("installations_org").on(t.orgId),
    ...tenantPolicies(),
    pgPolicy("by_account_id", { for: "select", using: sql`account_id = app_lookup('installation_account_id')::bigint` }),
    pgPolicy("by_codehost_id", { for: "select", using: sql`codehost_installation_id = app_lookup('codehost_installation')::bigint` }),
  ],
).enableRLS();

export const memberships = pgTable(
  "memberships",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    personId: uuid("person_id")
      .notNull()
      .references(() => people.id, { onDelete: "cascade" }),
    role: text("role", { enum: ROLES }).notNull(),
    roleSource: text("role_source", { enum: ROLE_SOURCES }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.personId] }),
    index("memberships_person").on(t.personId),
    index("memberships_joined").on(t.orgId, t.createdAt, t.personId),
    ...tenantPolicies(),
    pgPolicy("own", { for: "select", using: sql`person_id = app_lookup('person_id')::uuid` }),
  ],
).enableRLS();
