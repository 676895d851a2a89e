// Every console procedure, by name (/rpc/<name>).
import { accountRouter } from "./procedures/account";
import { analyticsRouter } from "./procedures/analytics";
import { auditRouter } from "./procedures/audit";
import { billingRouter, subscriptionsRouter } from "./procedures/billing";
import { claimsRouter } from "./procedures/claims";
import { connectedClientsRouter } from "./procedures/connected-clients";
import { deletionRouter } from "./procedures/deletion";
import { exportsRouter } from "./procedures/exports";
import { environmentsRouter } from "./procedures/environments";
import { invitationsRouter } from "./procedures/invitations";
import { membersRouter } from "./procedures/members";
import { organizationRouter } from "./procedures/organization";
import { agentsRouter, loadRouter, workloadsRouter } from "./procedures/runs";
import { sessionsRouter } from "./procedures/sessions";
import { tokensRouter } from "./procedures/tokens";
import { maskingRouter, networkRouter } from "./procedures/proposals";
import { pullRequestsRouter } from "./procedures/pull-requests";
import { decisionsRouter, runsRouter } from "./procedures/records";
import { runtimesRouter } from "./procedures/runtimes";
import { router } from "./trpc";
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
  agents: agentsRouter, load: loadRouter, workloads: workloadsRouter,
  admin: adminRouter,
  masking: maskingRouter, network: networkRouter, pullRequests: pullRequestsRouter,
  runs: runsRouter, decisions: decisionsRouter, runtimes: runtimesRouter,
  connectedClients: connectedClientsRouter,
  analytics: analyticsRouter,
});

export type AppRouter = typeof appRouter;
