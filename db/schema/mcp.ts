import { sql } from "drizzle-orm";
import { index, pgPolicy, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { GRANT_REVOKE_REASONS } from "../enums";
import { organizations } from "./organizations";
import { people } from "./people";
import { maintenanceDeletion, operatorRead, tenantPolicies } from "./policies";

export const protocolClients = pgTable(
  "protocol_clients",
  {
    clientId: text("client_id").primaryKey(),
    clientName: text("client_name").notNull(),
    redirectUris: text("redirect_uris").array().notNull(),
    grantTypes: text("grant_types").array().notNull().default(sql`'{authorization_code}'::text[]`),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  () => [
    pgPolicy("register", { for: "insert", withCheck: sql`true` }),
    pgPolicy("by_client_id", { for: "select", using: sql`client_id = app_lookup('protocol_client_id')` }),
    operatorRead(),
  ],
).enableRLS();

export const protocolGrants = pgTable(
  "protocol_grants",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    personId: uuid("person_id")
      .notNull()
      .references(() => people.id, { onDelete: "cascade" }),
    clientId: text("client_id")
      .notNull()
      .references(() => protocolClients.clientId, { onDelete: "cascade" }),
    clientName: text("client_name").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    codeChallenge: text("code_challenge").notNull(),
    codeHash: text("code_hash").notNull().unique("protocol_grants_code_hash_key"),
    codeExpiresAt: timestamp("code_expires_at", { withTimezone: true }).notNull(),
    codeUsedAt: timestamp("code_used_at", { withTimezone: true }),
    tokenHash: text("token_hash").unique("protocol_grants_token_hash_key"),
    tokenExpiresAt: timestamp("token_expires_at", { withTimezone: true }),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    revokeReason: text("revoke_reason", { enum: GRANT_REVOKE_REASONS }),
    refreshUntil: timestamp("refresh_until", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("protocol_grants_person").on(t.orgId, t.personId),
    ...tenantPolicies(),
    ...maintenanceDeletion(),
    pgPolicy("by_code", { using: sql`code_hash = app_lookup('protocol_code_hash')` }),
    pgPolicy("by_token", { using: sql`token_hash = app_lookup('protocol_token_hash')` }),
    pgPolicy("by_person_and_client", { for: "select", using: sql`person_id::text = app_lookup('person_id') AND client_id = app_lookup('protocol_client_id')` }),
  ],
).enableRLS();

export const protocolRefreshTokens = pgTable(
  "protocol_refresh_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    grantId: uuid("grant_id")
      .notNull()
      .references(() => protocolGrants.id, { onDelete: "cascade" }),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    spentAt: timestamp("spent_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("protocol_refresh_tokens_grant").on(t.grantId),
    index("protocol_refresh_tokens_expiry").on(t.expiresAt),
    ...tenantPolicies(),
    pgPolicy("by_hash", { for: "select", using: sql`token_hash = app_lookup('protocol_refresh_hash')` }),
    // The sweep deletes refresh tokens past their expiry (worker/mcp/prune.ts).
    pgPolicy("maintenance_expired_refresh", { to: "svc_maintenance", using: sql`expires_at <= now()` }),
  ],
).enableRLS();
