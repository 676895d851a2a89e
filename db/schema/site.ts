import { sql } from "drizzle-orm";
import { index, pgPolicy, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { SITE_CHANNELS, SITE_EVENT_NAMES, SITE_EVENT_REJECT_REASONS } from "../enums";
import { operatorRead } from "./policies";

/** The public site's forms: the application role only adds rows, the operator reads them (migrations/0019_leads.sql). */
const siteIntakePolicies = () => [pgPolicy("insert_only", { for: "insert", to: "svc_app", withCheck: sql`true` }), operatorRead()];

export const siteLeads = pgTable(
  "site_leads",
  {
    id: uuid("id").primaryKey(),
    name: text("name").notNull(),
    email: text("email").notNull(),
    company: text("company").notNull(),
    role: text("role"),
    teamSize: text("team_size"),
    message: text("message"),
    sourceOrigin: text("source_origin"),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("site_leads_received").on(t.receivedAt), ...siteIntakePolicies()],
).enableRLS();

export const siteApplications = pgTable(
  "site_applications",
  {
    id: uuid("id").primaryKey(),
    name: text("name").notNull(),
    email: text("email").notNull(),
    company: text("company"),
    codehostLogin: text("codehost_login"),
    teamSize: text("team_size"),
    useCase: text("use_case").notNull(),
    sourceOrigin: text("source_origin"),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("site_applications_received").on(t.receivedAt), ...siteIntakePolicies()],
).enableRLS();

export const siteEvents = pgTable(
  "site_events",
  {
    id: uuid("id").primaryKey(),
    name: text("name", { enum: SITE_EVENT_NAMES }).notNull(),
    sessionKey: text("session_key").notNull(),
    channel: text("channel", { enum: SITE_CHANNELS }).notNull(),
    page: text("page").notNull(),
    campaign: text("campaign"),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("site_events_received").on(t.receivedAt)],
);

export const siteEventRejects = pgTable(
  "site_event_rejects",
  {
    reason: text("reason", { enum: SITE_EVENT_REJECT_REASONS }).notNull(),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("site_event_rejects_received").on(t.receivedAt)],
);
