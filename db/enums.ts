// The enumerations the schema, the validation and the console share: plain values, no drizzle, so the
// browser's bundle can carry them (through worker/shared/enums.ts). Each is a text column checked by
// its migration (`CHECK (column IN (...))`); test/db/schema.test.ts keeps the two equal.

export const PLANS = ["free", "team", "enterprise"] as const;
export type Plan = (typeof PLANS)[number];

export const ROLES = ["owner", "admin", "member", "viewer"] as const;
export type Role = (typeof ROLES)[number];

/** How a membership got its role; `manual` is never overwritten by a later sign-in. */
export const ROLE_SOURCES = ["sync", "manual", "bootstrap", "invitation", "self_serve"] as const;
export type RoleSource = (typeof ROLE_SOURCES)[number];

export const TOKEN_KINDS = ["engine", "cli"] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

export const ENVIRONMENT_STATES = ["queued", "creating", "ready", "sleeping", "failed", "torn_down"] as const;
export type EnvironmentState = (typeof ENVIRONMENT_STATES)[number];

export const PLAN_CHANGE_SOURCES = ["provider", "operator"] as const;
export type PlanChangeSource = (typeof PLAN_CHANGE_SOURCES)[number];

/** The engine policies a change proposal edits. */
export const POLICY_KINDS = ["masking", "egress"] as const;
export type PolicyKind = (typeof POLICY_KINDS)[number];

export const PROPOSAL_PR_STATES = ["opened", "refused"] as const;
export type ProposalPrState = (typeof PROPOSAL_PR_STATES)[number];

export const PROPOSAL_STATES = ["proposed", "approved", "rejected"] as const;
export type ProposalState = (typeof PROPOSAL_STATES)[number];

export const DELIVERY_OUTCOMES = ["applied", "ignored", "refused"] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

export const DELETION_STEPS = ["stop", "end_subscription", "wait", "revoke", "export", "delete"] as const;
export type DeletionStep = (typeof DELETION_STEPS)[number];

export const DEVICE_AUTHORIZATION_STATUSES = ["pending", "approved", "denied", "issued"] as const;
export type DeviceAuthorizationStatus = (typeof DEVICE_AUTHORIZATION_STATUSES)[number];

export const RUN_OUTCOMES = ["passed", "failed", "errored", "cancelled"] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

export const GRANT_REVOKE_REASONS = [
  "person",
  "code_reused",
  "membership_ended",
  "organization_deleted",
  "client",
  "refresh_reused",
  "organization_suspended",
] as const;
export type GrantRevokeReason = (typeof GRANT_REVOKE_REASONS)[number];

/** The model providers the proxy forwards to. */
export const PROVIDERS = ["messages-provider", "chat-provider"] as const;
export type Provider = (typeof PROVIDERS)[number];

export const CLAIM_PROOFS = ["installation", "repository"] as const;
export type ClaimProof = (typeof CLAIM_PROOFS)[number];

export const CLAIM_SOURCES = ["cli", "installation"] as const;
export type ClaimSource = (typeof CLAIM_SOURCES)[number];

export const VERDICTS = ["pass", "fail", "warn", "skip"] as const;
export type Verdict = (typeof VERDICTS)[number];

export const RUNTIME_COMMAND_KINDS = ["teardown", "cancel"] as const;
export type RuntimeCommandKind = (typeof RUNTIME_COMMAND_KINDS)[number];

export const RUNTIME_COMMAND_OUTCOMES = ["done", "failed"] as const;
export type RuntimeCommandOutcome = (typeof RUNTIME_COMMAND_OUTCOMES)[number];

export const RUNTIME_COMMAND_STATES = ["waiting", "leased", "acknowledged"] as const;
export type RuntimeCommandState = (typeof RUNTIME_COMMAND_STATES)[number];

export const SITE_EVENT_REJECT_REASONS = ["unknown_name", "undeclared_field", "invalid_field", "malformed", "duplicate"] as const;
export type SiteEventRejectReason = (typeof SITE_EVENT_REJECT_REASONS)[number];

/** Where a site visitor came from. */
export const SITE_CHANNELS = ["direct", "search", "social", "email", "referral", "campaign", "internal"] as const;
export type SiteChannel = (typeof SITE_CHANNELS)[number];

export const SITE_EVENT_NAMES = ["page_landed", "signup_reached", "contact_requested"] as const;
export type SiteEventName = (typeof SITE_EVENT_NAMES)[number];

export const DISPATCH_OUTCOMES = ["dispatched", "refused", "unreachable"] as const;
export type DispatchOutcome = (typeof DISPATCH_OUTCOMES)[number];

export const ABANDON_REASONS = ["never_claimed", "claimed_then_quiet", "changed_hands_then_quiet", "changed_hands_first_engine_tried_to_end"] as const;
export type AbandonReason = (typeof ABANDON_REASONS)[number];

export const WORKLOAD_RUN_STATES = ["requested", "accepted", "finished", "cancelled", "abandoned"] as const;
export type WorkloadRunState = (typeof WORKLOAD_RUN_STATES)[number];
