import { sql } from "drizzle-orm";
import { index, integer, pgPolicy, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { DEVICE_AUTHORIZATION_STATUSES, ROLES } from "../enums";
import { organizations } from "./organizations";
import { people } from "./people";
import { tenantPolicies } from "./policies";

export const invitations = pgTable(
  "invitations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
    tokenHash: text("token_hash").notNull().unique("invitations_token_hash_key"),
    invitedBy: uuid("invited_by").references(() => people.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    acceptedAt: timestamp("accepted_at", { withTimezone: true }),
    acceptedBy: uuid("accepted_by").references(() => people.id, { onDelete: "set null" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [
    index("invitations_org").on(t.orgId, t.id),
    index("invitations_created").on(t.orgId, t.createdAt, t.id),
    index("invitations_email").on(t.email).where(sql`(accepted_at IS NULL) AND (revoked_at IS NULL)`),
    ...tenantPolicies(),
    pgPolicy("by_invited_email", {
      for: "select",
      using: sql`email = app_lookup('invited_email') AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()`,
    }),
    pgPolicy("by_token", { for: "select", using: sql`token_hash = app_lookup('invitation_hash')` }),
  ],
).enableRLS();

export const magicLinks = pgTable(
  "magic_links",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    email: text("email").notNull(),
    tokenHash: text("token_hash").notNull().unique("magic_links_token_hash_key"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
  },
  (t) => [
    index("magic_links_expiry").on(t.expiresAt),
    pgPolicy("issue", { for: "insert", withCheck: sql`true` }),
    pgPolicy("by_token", { using: sql`token_hash = app_lookup('magic_link_hash')` }),
    // The sweep deletes links past their 15 minutes (worker/magic-links/prune.ts).
    pgPolicy("maintenance_expired", { to: "svc_maintenance", using: sql`expires_at <= now()` }),
  ],
).enableRLS();

export const deviceAuthorizations = pgTable(
  "device_authorizations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    deviceCodeHash: text("device_code_hash").notNull().unique("device_authorizations_device_code_hash_key"),
    userCode: text("user_code").notNull().unique("device_authorizations_user_code_key"),
    scopes: text("scopes").array().notNull(),
    status: text("status", { enum: DEVICE_AUTHORIZATION_STATUSES }).notNull().default("pending"),
    personId: uuid("person_id").references(() => people.id, { onDelete: "cascade" }),
    grantedOrgId: uuid("granted_org_id").references(() => organizations.id, { onDelete: "cascade" }),
    grantedScopes: text("granted_scopes").array(),
    intervalSeconds: integer("interval_seconds").notNull(),
    lastPolledAt: timestamp("last_polled_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    clientId: text("client_id"),
  },
  (t) => [
    index("device_authorizations_expiry").on(t.expiresAt),
    pgPolicy("issue", { for: "insert", withCheck: sql`status = 'pending'` }),
    pgPolicy("by_device_code", { using: sql`device_code_hash = app_lookup('device_code_hash')` }),
    pgPolicy("by_user_code", { using: sql`user_code = app_lookup('user_code')` }),
    // The sweep deletes sign-ins a day past their 15 minutes (worker/device/prune.ts).
    pgPolicy("maintenance_expired", { to: "svc_maintenance", using: sql`expires_at < now() - interval '1 day'` }),
  ],
).enableRLS();
