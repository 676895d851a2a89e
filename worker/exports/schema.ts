// The data export document (spec: Data export document): one JSON file with every member the spec
// lists, references by name (repository `owner/name`, person login, environment id), never internal
// ids. Its JSON Schema is published in /openapi.json (components: DataExport) and every export is
// validated against it in tests.
import * as z from "zod";
import { POLICY_KINDS, VERDICTS } from "../../db/enums";

const When = z.iso.datetime().nullable();

const Person = z.strictObject({
  login: z.string().nullable(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  role: z.string(),
  joinedAt: z.iso.datetime(),
});
const Invitation = z.strictObject({
  email: z.string(),
  role: z.string(),
  state: z.enum(["pending", "expired", "accepted", "revoked"]),
  invitedBy: z.string().nullable(),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
});
const Repository = z.strictObject({
  repository: z.string(),
  via: z.enum(["claim", "installation"]),
  since: z.iso.datetime(),
  lastUsedAt: When,
  revokedAt: When,
});
const Environment = z.strictObject({
  envId: z.string(),
  repository: z.string(),
  branch: z.string().nullable(),
  pullRequest: z.int().nullable(),
  state: z.string(),
  startedAt: When,
  expiresAt: When,
  lastEventAt: z.iso.datetime(),
  previewUrls: z.array(z.string()),
});
const Workload = z.strictObject({
  name: z.string(),
  createdAt: z.iso.datetime(),
  archivedAt: When,
  versions: z.array(z.strictObject({ number: z.int(), compiled: z.record(z.string(), z.unknown()), createdAt: z.iso.datetime() })),
});
const WorkloadRun = z.strictObject({
  workload: z.string(),
  version: z.int(),
  envId: z.string(),
  state: z.string(),
  requestedAt: z.iso.datetime(),
  endedAt: When,
  abandonReason: z.string().nullable(),
});
const Run = z.strictObject({
  runId: z.string(),
  envId: z.string().nullable(),
  name: z.string().nullable(),
  runtime: z.string().nullable(),
  startedAt: When,
  finishedAt: When,
  outcome: z.enum(["passed", "failed", "errored", "cancelled"]).nullable(),
  durationMs: z.int().nullable(),
});
const Verdict = z.strictObject({
  runId: z.string(),
  name: z.string(),
  verdict: z.enum(VERDICTS),
  detail: z.string().nullable(),
  recordedAt: z.iso.datetime(),
});
const Runtime = z.strictObject({ name: z.string(), labels: z.array(z.string()), createdAt: z.iso.datetime(), lastSeenAt: When, removedAt: When });
const Credential = z.strictObject({
  kind: z.enum(["engine token", "cli token", "repository claim", "provider key"]),
  name: z.string(),
  person: z.string().nullable(),
  scopes: z.array(z.string()),
  createdAt: z.iso.datetime(),
  lastUsedAt: When,
  expiresAt: When,
  revokedAt: When,
});
const BillingEntry = z.strictObject({
  at: z.iso.datetime(),
  source: z.string(),
  from: z.string(),
  to: z.string(),
  status: z.string().nullable(),
  note: z.string(),
});
const Proposal = z.strictObject({
  kind: z.enum(POLICY_KINDS),
  repository: z.string(),
  path: z.string(),
  summary: z.string(),
  content: z.string(),
  policy: z.record(z.string(), z.unknown()).nullable(),
  previousContent: z.string(),
  loosens: z.boolean(),
  loosened: z.array(z.string()),
  state: z.enum(["proposed", "approved", "rejected"]),
  proposedBy: z.string(),
  proposedAt: z.iso.datetime(),
  decidedBy: z.string().nullable(),
  decidedAt: When,
  decisionNote: z.string().nullable(),
  pullRequest: z.strictObject({
    state: z.enum(["opened", "refused"]).nullable(),
    attempts: z.int(),
    branch: z.string().nullable(),
    number: z.int().nullable(),
    url: z.string().nullable(),
    refusal: z.string().nullable(),
    attemptedAt: When,
  }),
});
const AuditEntry = z.strictObject({
  seq: z.int(),
  at: z.string(),
  action: z.string(),
  actor: z.string(),
  target: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
  hash: z.string(),
});

export const DataExport = z
  .strictObject({
    version: z.literal(1),
    exportedAt: z.iso.datetime(),
    organization: z.strictObject({ slug: z.string(), name: z.string(), plan: z.string(), createdAt: z.iso.datetime() }),
    people: z.array(Person),
    invitations: z.array(Invitation),
    repositories: z.array(Repository),
    maskingRules: z.array(Proposal).describe("Every masking file proposal with its decision and pull request."),
    egressPolicy: z.array(Proposal).describe("Every egress policy proposal with its decision and pull request."),
    environments: z.array(Environment),
    runs: z.array(Run),
    verdicts: z.array(Verdict),
    runtimes: z.array(Runtime),
    workloads: z.array(Workload),
    workloadRuns: z.array(WorkloadRun),
    credentials: z.array(Credential),
    billingHistory: z.array(BillingEntry),
    auditLog: z.array(AuditEntry),
    files: z
      .record(z.string(), z.string())
      .describe("Text keyed by path: the masking file as the engine reads it, the egress block of the project configuration."),
    notIncluded: z.array(z.strictObject({ what: z.string(), why: z.string() })),
  })
  .meta({ id: "DataExport" });

export type DataExport = z.infer<typeof DataExport>;
