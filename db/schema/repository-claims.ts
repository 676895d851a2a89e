import { sql } from "drizzle-orm";
import { bigint, index, pgPolicy, pgTable, text, timestamp, unique, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { CLAIM_PROOFS, CLAIM_SOURCES } from "../enums";
import { installations, organizations } from "./organizations";
import { maintenanceDeletion, tenantPolicies } from "./policies";

export const repositoryClaims = pgTable(
  "repository_claims",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    repository: text("repository").notNull(),
    repositoryKey: text("repository_key").generatedAlwaysAs(sql`lower(repository)`),
    repositoryId: bigint("repository_id", { mode: "number" }),
    ownerId: bigint("owner_id", { mode: "number" }),
    source: text("source", { enum: CLAIM_SOURCES }).notNull(),
    installationId: uuid("installation_id").references(() => installations.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    proof: text("proof", { enum: CLAIM_PROOFS }),
    unprovenAuditedAt: timestamp("unproven_audited_at", { withTimezone: true }),
  },
  (t) => [
    index("repository_claims_key").on(t.repositoryKey),
    uniqueIndex("repository_claims_live").on(t.repositoryKey).where(sql`revoked_at IS NULL`),
    index("repository_claims_org").on(t.orgId, t.createdAt),
    ...tenantPolicies(),
    ...maintenanceDeletion(),
    pgPolicy("by_repository", { for: "select", using: sql`repository_key = app_lookup('claim_repository')` }),
  ],
).enableRLS();

export const repositoryClaimProofs = pgTable(
  "repository_claim_proofs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    repository: text("repository").notNull(),
    repositoryKey: text("repository_key").generatedAlwaysAs(sql`lower(repository)`),
    audienceHash: text("audience_hash").notNull().unique("repository_claim_proofs_audience_hash_key"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    unique("repository_claim_proofs_org_id_repository_key_key").on(t.orgId, t.repositoryKey),
    ...tenantPolicies(),
    pgPolicy("by_audience", { for: "select", using: sql`audience_hash = app_lookup('claim_proof')` }),
  ],
).enableRLS();
