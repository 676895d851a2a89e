// Every console procedure, by name (/rpc/<name>).
import { accountRouter } from "./procedures/account";
import { auditRouter } from "./procedures/audit";
import { membersRouter } from "./procedures/members";
import { organizationRouter } from "./procedures/organization";
import { sessionsRouter } from "./procedures/sessions";
import { tokensRouter } from "./procedures/tokens";
import { router } from "./trpc";

export const appRouter = router({
  account: accountRouter,
  organization: organizationRouter,
  members: membersRouter,
  sessions: sessionsRouter,
  tokens: tokensRouter,
  audit: auditRouter,
});

export type AppRouter = typeof appRouter;
