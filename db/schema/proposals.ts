import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, jsonb, pgPolicy, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { POLICY_KINDS, PROPOSAL_PR_STATES, PROPOSAL_STATES } from "../enums";
import { organizations } from "./organizations";
import { people } from "./people";
import { repositoryClaims } from "./repository-claims";
import { tenantPolicies } from "./policies";

export const changeProposals = pgTable(
  "change_proposals",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: POLICY_KINDS }).notNull(),
    repository: text("repository").notNull(),
    summary: text("summary").notNull(),
    content: text("content").notNull(),
    policy: jsonb("policy"),
    previousContent: text("previous_content").notNull(),
    loosens: boolean("loosens").notNull().default(false),
    loosened: jsonb("loosened").notNull().default([]),
    state: text("state", { enum: PROPOSAL_STATES }).notNull().default("proposed"),
    proposedBy: uuid("proposed_by").references(() => people.id, { onDelete: "set null" }),
    proposedByLabel: text("proposed_by_label").notNull(),
    proposedAt: timestamp("proposed_at", { withTimezone: true }).notNull().defaultNow(),
    decidedBy: uuid("decided_by").references(() => people.id, { onDelete: "set null" }),
    decidedByLabel: text("decided_by_label"),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    decisionNote: text("decision_note"),
    prState: text("pr_state", { enum: PROPOSAL_PR_STATES }),
    prAttempts: integer("pr_attempts").notNull().default(0),
    prBranch: text("pr_branch"),
    prNumber: integer("pr_number"),
    prUrl: text("pr_url"),
    prRefusal: text("pr_refusal"),
    prRefusalStatus: integer("pr_refusal_status"),
    prAttemptedAt: timestamp("pr_attempted_at", { withTimezone: true }),
  },
  (t) => [index("change_proposals_org").on(t.orgId, t.kind, t.proposedAt, t.id), ...tenantPolicies()],
).enableRLS();

export const policyFiles = pgTable(
  "policy_files",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: POLICY_KINDS }).notNull(),
    content: text("content").notNull(),
    policy: jsonb("policy"),
    proposalId: uuid("proposal_id").references(() => changeProposals.id, { onDelete: "set null" }),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.kind] }), ...tenantPolicies()],
).enableRLS();

export const prCommitApprovals = pgTable(
  "pr_commit_approvals",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    repository: text("repository").notNull(),
    repositoryKey: text("repository_key").notNull().generatedAlwaysAs(sql`lower(repository)`),
    commitSha: text("commit_sha").notNull(),
    pullRequest: integer("pull_request"),
    headRepository: text("head_repository"),
    requestedAt: timestamp("requested_at", { withTimezone: true }),
    approvedAt: timestamp("approved_at", { withTimezone: true }),
    approvedBy: uuid("approved_by").references(() => people.id, { onDelete: "set null" }),
    approvedByLabel: text("approved_by_label"),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.repositoryKey, t.commitSha] }),
    index("pr_commit_approvals_listed").on(
      t.orgId,
      sql`(${t.approvedAt} IS NULL)::int`,
      sql`CASE WHEN ${t.approvedAt} IS NULL THEN ${t.requestedAt} ELSE ${t.approvedAt} END`,
      t.repositoryKey,
      t.commitSha,
    ),
    ...tenantPolicies(),
  ],
).enableRLS();

export const prCredentials = pgTable(
  "pr_credentials",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique("pr_credentials_token_hash_key"),
    repository: text("repository").notNull(),
    commitSha: text("commit_sha").notNull(),
    runId: text("run_id").notNull(),
    runAttempt: integer("run_attempt").notNull(),
    pullRequest: integer("pull_request"),
    fork: boolean("fork").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    reportedAt: timestamp("reported_at", { withTimezone: true }),
    conclusion: text("conclusion"),
    checkRunId: bigint("check_run_id", { mode: "number" }),
    checkUrl: text("check_url"),
    bindingId: uuid("binding_id").references(() => repositoryClaims.id, { onDelete: "cascade" }),
  },
  (t) => [
    index("pr_credentials_run").on(t.orgId, sql`lower(${t.repository})`, t.commitSha, t.runId, t.runAttempt),
    ...tenantPolicies(),
    pgPolicy("by_token", { for: "select", using: sql`token_hash = app_lookup('token_hash')` }),
  ],
).enableRLS();
