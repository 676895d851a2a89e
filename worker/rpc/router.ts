// Every console procedure, by name (/rpc/<name>).
import { accountRouter } from "./procedures/account";
import { analyticsRouter } from "./procedures/analytics";
import { auditRouter } from "./procedures/audit";
import { billingRouter, subscriptionsRouter } from "./procedures/billing";
import { claimsRouter } from "./procedures/claims";
import { deletionRouter } from "./procedures/deletion";
import { exportsRouter } from "./procedures/exports";
import { environmentsRouter } from "./procedures/environments";
import { invitationsRouter } from "./procedures/invitations";
import { membersRouter } from "./procedures/members";
import { organizationRouter } from "./procedures/organization";
import { agentsRouter, loadRouter, workloadsRouter } from "./procedures/runs";
import { sessionsRouter } from "./procedures/sessions";
import { tokensRouter } from "./procedures/tokens";
import { router } from "./trpc";

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
  analytics: analyticsRouter,
});

export type AppRouter = typeof appRouter;
