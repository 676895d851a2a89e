import { sql } from "drizzle-orm";
import { bigint, index, jsonb, pgPolicy, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { maintenanceRollup, operatorRead } from "./policies";

/** Why a deletion's Revoke step ended a session (migrations/0037). */
export interface DeletionNotice {
  organization: { name: string; slug: string };
  /** When an owner asked for the deletion (ISO). */
  requestedAt: string;
  /** The held export's token hash (deletion_exports): until when its link works is read from there. */
  exportTokenHash: string;
}

export const people = pgTable(
  "people",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    codehostUserId: bigint("codehost_user_id", { mode: "number" }).unique("people_codehost_user_id_key"),
    login: text("login"),
    name: text("name"),
    email: text("email"),
    avatarUrl: text("avatar_url"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    closedAt: timestamp("closed_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("people_email_only").on(t.email).where(sql`(codehost_user_id IS NULL) AND (closed_at IS NULL)`),
    pgPolicy("self", { using: sql`id = app_lookup('person_id')::uuid` }),
    pgPolicy("member_of_org", { for: "select", using: sql`EXISTS (SELECT 1 FROM memberships m WHERE m.person_id = people.id AND m.org_id = app_org_id())` }),
    operatorRead(),
    pgPolicy("by_codehost_user", { for: "select", using: sql`codehost_user_id = app_lookup('codehost_user_id')::bigint` }),
    pgPolicy("by_email", { for: "select", using: sql`email = app_lookup('person_email')` }),
    maintenanceRollup(),
  ],
).enableRLS();

export const sessions = pgTable(
  "sessions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    personId: uuid("person_id")
      .notNull()
      .references(() => people.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique("sessions_token_hash_key"),
    clientAddress: text("client_address"),
    userAgent: text("user_agent"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
    signedOutAt: timestamp("signed_out_at", { withTimezone: true }),
    /** Set by a deletion's Revoke step (worker/deletion): what the signed-out browser is told. */
    endedByDeletion: jsonb("ended_by_deletion").$type<DeletionNotice>(),
  },
  (t) => [
    index("sessions_person").on(t.personId),
    index("sessions_created").on(t.createdAt),
    pgPolicy("by_token", { to: "svc_app", using: sql`token_hash = app_lookup('session_hash')` }),
    pgPolicy("own", { to: "svc_app", using: sql`person_id = app_lookup('person_id')::uuid` }),
    pgPolicy("member_of_org", {
      to: "svc_app",
      using: sql`EXISTS (SELECT 1 FROM memberships m WHERE m.person_id = sessions.person_id AND m.org_id = app_org_id())`,
    }),
    operatorRead(),
    // The sweep deletes sessions past their 30 days (worker/sessions/prune.ts).
    pgPolicy("maintenance_ended", { to: "svc_maintenance", using: sql`created_at < now() - interval '31 days'` }),
  ],
).enableRLS();
