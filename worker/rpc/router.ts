// Every console procedure, by name (/rpc/<name>).
import { accountRouter } from "./procedures/account";
import { organizationRouter } from "./procedures/organization";
import { router } from "./trpc";

export const appRouter = router({
  account: accountRouter,
  organization: organizationRouter,
});

export type AppRouter = typeof appRouter;
