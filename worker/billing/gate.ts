// The required-plan gate (SVC_HOSTED_REQUIRED_PLAN=enterprise): until the billing provider grants the
// enterprise plan, an organization's work is refused with 402; signing in and out and the exits
// (billing, data export, deletion, account closing, listing and revoking sessions) stay reachable.
// One table decides for every procedure and route; a test walks them all against it, so a new one
// must say which side it is on.
import type { Config } from "../config/types";
import type { AppContext } from "../http/context";
import { Refusal } from "../http/refusal";
import type { Plan } from "./plan";

export type GateSide = "gated" | "reachable";

/** Console procedures by name. Procedures that act on no organization have no plan to check. */
export const PROCEDURE_GATE: Record<string, GateSide> = {
  "account.context": "reachable",
  "account.close": "reachable",
  "invitations.accept": "reachable",
  "sessions.list": "reachable",
  "sessions.signOut": "reachable",
  "sessions.signOutAll": "reachable",
  "billing.get": "reachable",
  "billing.portal": "reachable",
  "billing.set": "reachable",
  "subscriptions.checkout": "reachable",
  "exports.create": "reachable",
  "exports.list": "reachable",
  "deletion.request": "reachable",
  "deletion.status": "reachable",
  "deletion.callOff": "reachable",
  // What someone needs to find their way to billing: which organization this is and their role in it.
  "organization.get": "reachable",
  "organization.settings": "gated",
  "members.list": "gated",
  "members.changeRole": "gated",
  "members.remove": "gated",
  "members.sync": "gated",
  "tokens.list": "gated",
  "tokens.create": "gated",
  "tokens.revoke": "gated",
  "claims.list": "gated",
  "claims.revoke": "gated",
  "audit.list": "gated",
  "audit.verify": "gated",
  "workloads.list": "gated",
  "workloads.define": "gated",
  "workloads.runs": "gated",
  "workloads.start": "gated",
  "invitations.list": "gated",
  "invitations.create": "gated",
  "invitations.resend": "gated",
  "invitations.revoke": "gated",
  "environments.list": "gated",
  "environments.get": "gated",
  "environments.create": "gated",
  "environments.teardown": "gated",
  "agents.run": "gated",
  "load.run": "gated",
  // The operator portal: operators act on every organization, whatever its plan.
  "admin.overview": "reachable",
  "admin.organizations": "reachable",
  "admin.suspend": "reachable",
  "admin.liftSuspension": "reachable",
  "admin.setPlan": "reachable",
  "admin.failures": "reachable",
  "admin.operators": "reachable",
  "admin.leads": "reachable",
  "admin.applications": "reachable",
  // Masking and egress proposals, fork commit approvals.
  "masking.current": "gated",
  "masking.proposals": "gated",
  "masking.propose": "gated",
  "masking.approve": "gated",
  "masking.reject": "gated",
  "masking.openPullRequest": "gated",
  "network.current": "gated",
  "network.proposals": "gated",
  "network.propose": "gated",
  "network.approve": "gated",
  "network.reject": "gated",
  "network.openPullRequest": "gated",
  "pullRequests.commits": "gated",
  "pullRequests.approveCommit": "gated",
  // Engine records, workload lifecycle and runtimes.
  "runs.list": "gated",
  "runs.get": "gated",
  "decisions.list": "gated",
  "workloads.get": "gated",
  "workloads.addVersion": "gated",
  "workloads.archive": "gated",
  "workloads.promote": "gated",
  "workloads.getRun": "gated",
  "workloads.cancelRun": "gated",
  "workloads.retryRun": "gated",
  "runtimes.list": "gated",
  "runtimes.register": "gated",
  "runtimes.tag": "gated",
  "runtimes.untag": "gated",
  "runtimes.remove": "gated",
  // Disconnecting a model client is a way out too.
  "connectedClients.list": "reachable",
  "connectedClients.revoke": "reachable",
  // Installation analytics: read by the operating organization, which no plan gates.
  "analytics.catalog": "reachable",
  "analytics.overview": "reachable",
};

/**
 * Hand-written routes by `METHOD path` (hono's form). Only a route that acts for an organization's
 * token is checked at run time; the others act for no organization's plan (sign-in, webhooks,
 * health, the identity exchange) and are listed so that every route has said which side it is on.
 */
export const ROUTE_GATE: Record<string, GateSide> = {
  "POST /v1/events": "gated",
  "POST /v1/oidc/bindings": "gated",
  "GET /v1/oidc/bindings": "gated",
  "DELETE /v1/oidc/bindings/:binding": "gated",
  "DELETE /v1/oidc/bindings/:owner/:name": "gated",
  // Bring your own model key: the proxy, the CLI's provider operations and the console's, all gated.
  "POST /byok/messages-provider/v1/messages": "gated",
  "POST /byok/chat-provider/v1/chat/completions": "gated",
  "GET /console/api/providers": "gated",
  "PUT /console/api/providers/:provider": "gated",
  "DELETE /console/api/providers/:provider": "gated",
  "PUT /console/api/providers/:provider/budget": "gated",
  "GET /v1/providers": "gated",
  "PUT /v1/providers/:provider": "gated",
  "DELETE /v1/providers/:provider": "gated",
  "PUT /v1/providers/:provider/budget": "gated",
  // Engine work already asked for runs to its end, and teardowns stay claimable: exits too.
  "POST /v1/workloads/claim": "reachable",
  "POST /v1/workloads/runs/:runId/heartbeat": "reachable",
  "POST /v1/commands/claim": "reachable",
  "POST /v1/commands/:id/ack": "reachable",
  "POST /v1/tokens": "reachable",
  // Leaving cleanly: the audit log goes with the organization's other exits.
  "GET /console/api/audit/export": "reachable",
  "GET /console/api/exports/:exportId": "reachable",
  "GET /exports/deletion": "reachable",
  "DELETE /exports/deletion": "reachable",
  // The console's procedures are gated one by one (PROCEDURE_GATE).
  "ALL /rpc/*": "reachable",
  // No organization's plan applies.
  "GET /health": "reachable",
  "GET /readyz": "reachable",
  "GET /openapi.json": "reachable",
  // Enterprise routes: the licence gates them (worker/enterprise/gate.ts), not the plan; /metrics names no organization.
  "GET /.well-known/svc-enterprise": "reachable",
  "ALL /sso": "reachable",
  "ALL /sso/*": "reachable",
  "ALL /scim/v2": "reachable",
  "ALL /scim/v2/*": "reachable",
  "GET /metrics": "reachable",
  "POST /v1/auth/codehost-oidc": "reachable",
  // Pull-request checks report on work a workflow already ran, like the identity exchange they build on.
  "POST /v1/pr/callback-token": "reachable",
  "POST /v1/pr/report": "reachable",
  "POST /webhooks/codehost": "reachable",
  "POST /webhooks/billing": "reachable",
  "GET /": "reachable",
  "GET /auth/signin": "reachable",
  "GET /auth/callback": "reachable",
  "GET /auth/session": "reachable",
  "POST /auth/signout": "reachable",
  "GET /auth/sessions": "reachable",
  "POST /auth/device/code": "reachable",
  "POST /auth/device/token": "reachable",
  "GET /auth/device": "reachable",
  "POST /auth/device/approve": "reachable",
  "POST /auth/magic-link": "reachable",
  "GET /auth/magic-link/callback": "reachable",
  // The operator portal (operators, not an organization's members).
  "GET /admin/session": "reachable",
  "POST /admin/signin": "reachable",
  "POST /admin/signout": "reachable",
  "GET /admin": "reachable",
  "GET /admin/*": "reachable",
  "ALL /admin/*": "reachable",
  // The site's forms and the analytics proxy: no organization, no plan.
  "OPTIONS /v1/leads": "reachable",
  "POST /v1/leads": "reachable",
  "OPTIONS /v1/applications": "reachable",
  "POST /v1/applications": "reachable",
  "ALL /px/*": "reachable",
  // The model-context-protocol endpoint: each tool is its console procedure, gated as that procedure is.
  "POST /mcp": "reachable",
  "GET /mcp": "reachable",
  "DELETE /mcp": "reachable",
  "GET /.well-known/oauth-protected-resource": "reachable",
  "GET /.well-known/oauth-protected-resource/mcp": "reachable",
  "GET /.well-known/oauth-authorization-server": "reachable",
  "POST /auth/mcp/register": "reachable",
  "GET /auth/mcp/authorize": "reachable",
  "POST /auth/mcp/authorize": "reachable",
  "POST /auth/mcp/token": "reachable",
  // Installation analytics: the site beacon acts for no organization.
  "POST /v1/site/events": "reachable",
  "OPTIONS /v1/site/events": "reachable",
};

/** The spec's 402 Refusal when the gate is on, the organization lacks the required plan and `side` is gated. */
export function checkPlanGate(config: Config, plan: string, side: GateSide | undefined): void {
  const required = config.billing.hostedRequiredPlan;
  if (!required || plan === required || side === "reachable") return;
  throw new Refusal(
    "plan_required",
    `This organization is on the ${plan as Plan} plan; this installation needs the ${required} plan. An owner can subscribe on the Billing page; billing, data export, deletion and sessions stay reachable.`,
  );
}

/** Which side of the gate the hand-written route being served is on. */
export const routeGateSide = (c: AppContext): GateSide | undefined => ROUTE_GATE[`${c.req.method} ${c.req.routePath}`];

/** The gate on a hand-written route. */
export const gateRoute = (c: AppContext, plan: string): void => checkPlanGate(c.var.config, plan, routeGateSide(c));
