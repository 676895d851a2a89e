import { pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

export const TOKEN_KINDS = ["engine", "cli"] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

export const tokens = pgTable("tokens", {
  id: uuid("id").primaryKey().defaultRandom(),
  orgId: uuid("org_id").notNull(),
  kind: text("kind", { enum: TOKEN_KINDS }).notNull(),
  name: text("name").notNull(),
  tokenHash: text("token_hash").notNull().unique(),
  displayPrefix: text("display_prefix").notNull(),
  scopes: text("scopes").array().notNull().default([]),
  createdBy: uuid("created_by"),
  /** The person a CLI token acts for: it is never stronger than their current role. */
  personId: uuid("person_id"),
  expiresAt: timestamp("expires_at", { withTimezone: true }),
  lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
  revokedAt: timestamp("revoked_at", { withTimezone: true }),
  /** The repository claim an identity-exchange token was minted through; it dies with the claim. */
  bindingId: uuid("binding_id"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});
