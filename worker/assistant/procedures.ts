// assistant.status (any member; it says who may ask): whether the website assistant is on, whether
// the caller may ask (owners only), and their day's use of its limits. Asking is the session route
// POST /console/api/assistant (routes.ts), since its answer streams.
import { inOrganization, router } from "../trpc/builder";
import { utcDay } from "./limits";
import { statusOf } from "./status";
import { dayUsage } from "./store";

const status = inOrganization
  .meta({
    // Any member may ask whether it is offered; only an owner may ask it a question (the route checks the role).
    permission: null,
    gate: "gated",
    summary: "Whether the website assistant is on and offered to you (owners only), and your use of its daily limits",
  })
  .query(async ({ ctx }) => {
    const now = new Date();
    const usage = await ctx.transaction((tx) => dayUsage(tx, ctx.session.personId, utcDay(now)));
    return statusOf(ctx.config, ctx.org.role, usage, now);
  });

export const assistantRouter = router({ status });
