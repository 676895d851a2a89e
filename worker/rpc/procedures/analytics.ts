// analytics.catalog and analytics.overview (analytics.read, and the organization must be the one
// SVC_ANALYTICS_OPERATOR_ORG names; unset: nobody): the installation analytics dashboard.
import { TRPCError } from "@trpc/server";
import * as z from "zod";
import { CHANNELS, COHORT_MIN_FOR_PERCENT, COHORT_WEEKS, EVENT_CATALOG, MAX_BEACON_EVENTS, METRICS, WORKING_SET_DAYS } from "../../analytics/catalog";
import { OVERVIEW_DAYS, readOverview } from "../../analytics/overview";
import { inOrganization, router } from "../trpc";

/** After `analytics.read`: the organization acted on must be the operating organization. */
const operating = inOrganization.use(async ({ ctx, next }) => {
  const operatorOrg = ctx.config.analytics.operatorOrg;
  const { rows } = await ctx.tx.sql.query<{ slug: string }>("SELECT slug FROM organizations WHERE id = $1", [ctx.org.id]);
  if (operatorOrg === null || rows[0]?.slug !== operatorOrg) {
    throw new TRPCError({
      code: "FORBIDDEN",
      message: "The installation analytics are read only by owners and admins of the operating organization (SVC_ANALYTICS_OPERATOR_ORG); this is not it.",
    });
  }
  return next();
});

const catalog = operating
  .meta({ permission: "analytics.read", summary: "The beacon's closed catalog of events and fields, and what each dashboard metric means" })
  .query(() => ({
    events: Object.entries(EVENT_CATALOG).map(([name, entry]) => ({
      name,
      description: entry.description,
      fields: Object.entries(entry.fields).map(([field, rule]) => ({ name: field, required: rule.required, description: rule.description })),
    })),
    channels: [...CHANNELS],
    metrics: Object.entries(METRICS).map(([metric, description]) => ({ metric, description })),
    limits: { batchEvents: MAX_BEACON_EVENTS, workingSetDays: WORKING_SET_DAYS, cohortWeeks: COHORT_WEEKS, minimumForPercent: COHORT_MIN_FOR_PERCENT },
  }));

const Days = z.union(OVERVIEW_DAYS.map((days) => z.literal(days)) as [z.ZodLiteral<7>, z.ZodLiteral<28>, z.ZodLiteral<90>]);

const overview = operating
  .meta({ permission: "analytics.read", summary: "Totals, daily series, funnel and weekly retention cohorts over the last 7, 28 or 90 days" })
  .input(z.object({ days: Days.default(28).describe("7, 28 or 90; default 28.") }))
  .query(({ ctx, input }) => readOverview(ctx.tx, input.days));

export const analyticsRouter = router({ catalog, overview });
