// Every console procedure, and a call of it that passes validation, with the exact status a caller
// allowed through gets (what happens after the checks is deterministic: "nobody" ids answer 404).
// The permission walk and the plan-gate walk both go through all of them.
import { appRouter } from "../../worker/rpc/router";
import type { ProcedureMeta } from "../../worker/rpc/trpc";

export interface Probe {
  input: (orgId: string) => unknown;
  allowed: number;
  /** Probes that change the caller themselves (closing the account) get a fresh person per role. */
  fresh?: boolean;
}

const nobody = () => crypto.randomUUID();
const org = (more: Record<string, unknown> = {}) => (orgId: string) => ({ orgId, ...more });

export const PROBES: Record<string, Probe> = {
  "account.context": { input: () => undefined, allowed: 200 },
  "account.close": { input: () => ({ confirm: "close" }), allowed: 200, fresh: true },
  "organization.get": { input: org(), allowed: 200 },
  "organization.settings": { input: org({ name: "Walked" }), allowed: 200 },
  "members.list": { input: org(), allowed: 200 },
  "members.changeRole": { input: (orgId) => ({ orgId, personId: nobody(), role: "member" }), allowed: 404 },
  "members.remove": { input: (orgId) => ({ orgId, personId: nobody() }), allowed: 404 },
  // No App installation: the code host lists nobody, and a sync never empties an organization.
  "members.sync": { input: org(), allowed: 412 },
  "sessions.list": { input: org(), allowed: 200 },
  "sessions.signOut": { input: (orgId) => ({ orgId, sessionId: nobody() }), allowed: 404 },
  "sessions.signOutAll": { input: (orgId) => ({ orgId, personId: nobody() }), allowed: 404 },
  "tokens.list": { input: org(), allowed: 200 },
  "tokens.create": { input: org({ name: "walked" }), allowed: 200 },
  "tokens.revoke": { input: (orgId) => ({ orgId, tokenId: nobody() }), allowed: 404 },
  "claims.list": { input: org(), allowed: 200 },
  "claims.revoke": { input: (orgId) => ({ orgId, claimId: nobody() }), allowed: 404 },
  "audit.list": { input: org(), allowed: 200 },
  "audit.verify": { input: org(), allowed: 200 },
  "workloads.list": { input: org(), allowed: 200 },
  "workloads.runs": { input: org(), allowed: 200 },
  "workloads.define": { input: (orgId) => ({ orgId, name: `walk-${nobody()}`, compiled: {} }), allowed: 200 },
  "workloads.start": { input: (orgId) => ({ orgId, envId: "nowhere", versionId: nobody() }), allowed: 404 },
  "invitations.list": { input: org(), allowed: 200 },
  "invitations.create": { input: (orgId) => ({ orgId, email: `walk-${nobody()}@example.com`, role: "member" }), allowed: 200 },
  "invitations.resend": { input: (orgId) => ({ orgId, invitationId: nobody() }), allowed: 404 },
  "invitations.revoke": { input: (orgId) => ({ orgId, invitationId: nobody() }), allowed: 404 },
  "invitations.accept": { input: () => ({ token: "svc_inv_nothing" }), allowed: 404 },
  "environments.list": { input: org(), allowed: 200 },
  "environments.get": { input: org({ envId: "nowhere" }), allowed: 404 },
  // The code host refusing the dispatch is an answer, not an error.
  "environments.create": { input: org({ repository: "nobody/nothing", branch: "main" }), allowed: 200 },
  "environments.teardown": { input: org({ envId: "nowhere" }), allowed: 404 },
  "agents.run": { input: org({ envId: "nowhere" }), allowed: 404 },
  "load.run": { input: org({ envId: "nowhere" }), allowed: 404 },
  "billing.get": { input: org(), allowed: 200 },
  // Billing is off in the suite's configuration, and plans come from billing: refused with a sentence.
  "billing.portal": { input: org(), allowed: 412 },
  "billing.set": { input: org({ plan: "team" }), allowed: 412 },
  "subscriptions.checkout": { input: org({ plan: "team" }), allowed: 412 },
  "exports.create": { input: org(), allowed: 200 },
  "exports.list": { input: org(), allowed: 200 },
  // The slug typed wrong: refused after the permission check.
  "deletion.request": { input: org({ confirm: "not-the-slug" }), allowed: 400 },
  "deletion.status": { input: org(), allowed: 200 },
  "deletion.callOff": { input: org(), allowed: 404 },
  // The operator portal: a customer session, whatever its role, is refused (test/operators covers operators).
  "admin.overview": { input: () => undefined, allowed: 403 },
  "admin.organizations": { input: () => ({}), allowed: 403 },
  "admin.suspend": { input: () => ({ organizationId: nobody() }), allowed: 403 },
  "admin.liftSuspension": { input: () => ({ organizationId: nobody() }), allowed: 403 },
  "admin.setPlan": { input: () => ({ organizationId: nobody(), plan: "team" }), allowed: 403 },
  "admin.failures": { input: () => undefined, allowed: 403 },
  "admin.operators": { input: () => undefined, allowed: 403 },
  "admin.leads": { input: () => ({}), allowed: 403 },
  "admin.applications": { input: () => ({}), allowed: 403 },
  // Proposals and pull-request checks. The walked organization claims no repository, so a
  // proposal has nowhere to land: 412 after the permission check.
  "masking.current": { input: org(), allowed: 200 },
  "masking.proposals": { input: org(), allowed: 200 },
  "masking.propose": { input: org({ summary: "walked", content: "tables: {}\n" }), allowed: 412 },
  "masking.approve": { input: (orgId) => ({ orgId, proposalId: nobody() }), allowed: 404 },
  "masking.reject": { input: (orgId) => ({ orgId, proposalId: nobody() }), allowed: 404 },
  "masking.openPullRequest": { input: (orgId) => ({ orgId, proposalId: nobody() }), allowed: 404 },
  "network.current": { input: org(), allowed: 200 },
  "network.proposals": { input: org(), allowed: 200 },
  "network.propose": { input: org({ summary: "walked", policy: { default: "deny", allow: [], deny: [] } }), allowed: 412 },
  "network.approve": { input: (orgId) => ({ orgId, proposalId: nobody() }), allowed: 404 },
  "network.reject": { input: (orgId) => ({ orgId, proposalId: nobody() }), allowed: 404 },
  "network.openPullRequest": { input: (orgId) => ({ orgId, proposalId: nobody() }), allowed: 404 },
  "pullRequests.commits": { input: org(), allowed: 200 },
  "pullRequests.approveCommit": { input: org({ repository: "nobody/nothing", commit: "a".repeat(40) }), allowed: 404 },
  // Engine records, workload lifecycle and runtimes.
  "runs.list": { input: org({ envId: "nowhere" }), allowed: 200 },
  "runs.get": { input: org({ runId: "nothing" }), allowed: 404 },
  "decisions.list": { input: org({ envId: "nowhere", decision: "denied" }), allowed: 200 },
  "workloads.get": { input: (orgId) => ({ orgId, workloadId: nobody() }), allowed: 404 },
  "workloads.addVersion": { input: (orgId) => ({ orgId, workloadId: nobody(), compiled: {} }), allowed: 404 },
  "workloads.archive": { input: (orgId) => ({ orgId, workloadId: nobody() }), allowed: 404 },
  "workloads.promote": { input: (orgId) => ({ orgId, versionId: nobody() }), allowed: 404 },
  "workloads.getRun": { input: (orgId) => ({ orgId, runId: nobody() }), allowed: 404 },
  "workloads.cancelRun": { input: (orgId) => ({ orgId, runId: nobody() }), allowed: 404 },
  "workloads.retryRun": { input: (orgId) => ({ orgId, runId: nobody() }), allowed: 404 },
  "runtimes.list": { input: org(), allowed: 200 },
  "runtimes.register": { input: (orgId) => ({ orgId, name: `walk-${nobody()}`, labels: ["gpu"] }), allowed: 200 },
  "runtimes.tag": { input: (orgId) => ({ orgId, runtimeId: nobody(), label: "gpu" }), allowed: 404 },
  "runtimes.untag": { input: (orgId) => ({ orgId, runtimeId: nobody(), label: "gpu" }), allowed: 404 },
  "runtimes.remove": { input: (orgId) => ({ orgId, runtimeId: nobody() }), allowed: 404 },
  "connectedClients.list": { input: org(), allowed: 200 },
  "connectedClients.revoke": { input: (orgId) => ({ orgId, grantId: nobody() }), allowed: 404 },
  // SVC_ANALYTICS_OPERATOR_ORG is unset in the suite: nobody reads the dashboard (test/analytics/rollup.test.ts reads it).
  "analytics.catalog": { input: org(), allowed: 403 },
  "analytics.overview": { input: org({ days: 7 }), allowed: 403 },
};

interface Procedure {
  _def: { type: "query" | "mutation"; meta?: ProcedureMeta };
}

/** The router's procedures by name. */
export const PROCEDURES = Object.entries((appRouter._def as unknown as { procedures: Record<string, Procedure> }).procedures);
