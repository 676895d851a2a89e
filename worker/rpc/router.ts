// Every console procedure, by name (/rpc/<name>).
import { accountRouter } from "../account/procedures";
import { analyticsRouter } from "../analytics/procedures";
import { assistantRouter } from "../assistant/procedures";
import { auditRouter } from "../audit/procedures";
import { billingRouter, subscriptionsRouter } from "../billing/procedures";
import { claimsRouter } from "../repository-claims/procedures";
import { connectedClientsRouter } from "../mcp/procedures";
import { deletionRouter } from "../deletion/procedures";
import { exportsRouter } from "../exports/procedures";
import { environmentsRouter } from "../environments/procedures";
import { invitationsRouter } from "../invitations/procedures";
import { membersRouter } from "../members/procedures";
import { organizationRouter } from "../organizations/procedures";
import { overviewRouter } from "../overview/procedures";
import { providersRouter } from "../providers/procedures";
import { agentsRouter, loadRouter, workloadStart } from "../workloads/procedures";
import { workloadDefinitions } from "../workloads/definition-procedures";
import { workloadLifecycle } from "../workloads/lifecycle-procedures";
import { workloadRuns } from "../workloads/run-procedures";
import { sessionsRouter } from "../sessions/procedures";
import { tokensRouter } from "../tokens/procedures";
import { maskingRouter, networkRouter } from "../proposals/procedures";
import { pullRequestsRouter } from "../pr-checks/procedures";
import { checksRouter, decisionsRouter, runsRouter } from "../records/procedures";
import { runtimesRouter } from "../runtimes/procedures";
import { router } from "../trpc/builder";
import { adminRouter } from "../operators/procedures";

export const appRouter = router({
  account: accountRouter,
  organization: organizationRouter,
  members: membersRouter,
  sessions: sessionsRouter,
  tokens: tokensRouter,
  claims: claimsRouter,
  billing: billingRouter,
  subscriptions: subscriptionsRouter,
  exports: exportsRouter,
  deletion: deletionRouter,
  audit: auditRouter,
  invitations: invitationsRouter,
  environments: environmentsRouter,
  agents: agentsRouter,
  load: loadRouter,
  workloads: router({ ...workloadDefinitions, ...workloadRuns, ...workloadLifecycle, ...workloadStart }),
  admin: adminRouter,
  masking: maskingRouter,
  network: networkRouter,
  pullRequests: pullRequestsRouter,
  runs: runsRouter,
  decisions: decisionsRouter,
  checks: checksRouter,
  runtimes: runtimesRouter,
  connectedClients: connectedClientsRouter,
  analytics: analyticsRouter,
  assistant: assistantRouter,
  overview: overviewRouter,
  providers: providersRouter,
});

export type AppRouter = typeof appRouter;
