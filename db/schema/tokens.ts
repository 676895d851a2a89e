import { sql } from "drizzle-orm";
import { index, pgPolicy, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { TOKEN_KINDS } from "../enums";
import { organizations } from "./organizations";
import { people } from "./people";
import { repositoryClaims } from "./repository-claims";
import { tenantPolicies } from "./policies";

export const tokens = pgTable(
  "tokens",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: TOKEN_KINDS }).notNull(),
    name: text("name").notNull(),
    tokenHash: text("token_hash").notNull().unique("tokens_token_hash_key"),
    displayPrefix: text("display_prefix").notNull(),
    scopes: text("scopes").array().notNull().default([]),
    createdBy: uuid("created_by").references(() => people.id, { onDelete: "set null" }),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** The repository claim an identity-exchange token was minted through; it dies with the claim. */
    bindingId: uuid("binding_id").references(() => repositoryClaims.id, { onDelete: "cascade" }),
    /** The person a CLI token acts for: it is never stronger than their current role. */
    personId: uuid("person_id").references(() => people.id),
  },
  (t) => [
    index("tokens_binding").on(t.bindingId).where(sql`binding_id IS NOT NULL`),
    index("tokens_org").on(t.orgId, t.id),
    index("tokens_created").on(t.orgId, t.createdAt, t.id),
    index("tokens_exchange_expiry").on(t.expiresAt).where(sql`binding_id IS NOT NULL`),
    index("tokens_person").on(t.personId).where(sql`person_id IS NOT NULL`),
    ...tenantPolicies(),
    // The sweep deletes identity-exchange tokens whose 15 minutes are over (worker/tokens/prune.ts).
    pgPolicy("maintenance_expired_exchange", { to: "svc_maintenance", using: sql`binding_id IS NOT NULL AND expires_at <= now()` }),
    pgPolicy("by_token", { for: "select", using: sql`token_hash = app_lookup('token_hash')` }),
  ],
).enableRLS();
