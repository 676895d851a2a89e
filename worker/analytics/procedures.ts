// analytics.catalog and analytics.overview: the installation analytics dashboard. Their input names no
// organization (the spec's: none, and `days`): the caller needs `analytics.read` in the operating
// organization, the one SVC_ANALYTICS_OPERATOR_ORG names (operating.ts; unset: nobody).
// Reachable whatever the plan: the operating organization reads it, and no plan gates that one.
import * as z from "zod";
import { authorize, Denied } from "../auth";
import { checkPlanGate } from "../http/plan-gate";
import { Refusal } from "../http/refusal";
import { CHANNELS, COHORT_MIN_FOR_PERCENT, COHORT_WEEKS, EVENT_CATALOG, MAX_BEACON_EVENTS, METRICS, WORKING_SET_DAYS } from "./catalog";
import { operatingOrganization } from "./operating";
import { OVERVIEW_DAYS, readOverview } from "./overview";
import { router, signedIn } from "../trpc/builder";

const notOperating = () =>
  new Refusal(
    "forbidden",
    "The installation analytics are read only by owners and admins of the operating organization (SVC_ANALYTICS_OPERATOR_ORG); you are not a member of it.",
  );

/**
 * A signed-in caller whose role in the operating organization holds the procedure's permission
 * (meta.permission, checked by `authorize` against the permission table), then the plan gate on its
 * side. Not a member of it: 403 too, not 404 (the organization is the installation's, not a hidden one).
 */
const operating = signedIn.use(async ({ ctx, meta, path, next }) => {
  if (meta === undefined) throw new Error(`Procedure ${path} declares no permission.`);
  const slug = ctx.config.analytics.operatorOrg;
  if (slug === null) {
    throw new Refusal("forbidden", "Nobody reads the installation analytics here: SVC_ANALYTICS_OPERATOR_ORG, the operating organization, is not set.");
  }
  await ctx.transaction(async (tx) => {
    const orgId = await operatingOrganization(tx, slug, { pin: true });
    if (orgId === null) {
      throw new Refusal(
        "forbidden",
        "SVC_ANALYTICS_OPERATOR_ORG names no operating organization now (no organization has that slug, or another one than it named when first used); the operator names it again by its current slug.",
      );
    }
    // A bearer bound to one organization acts for that one only.
    if (ctx.onlyOrgId !== null && ctx.onlyOrgId !== orgId) throw notOperating();
    const grant = await authorize(tx, { kind: "session", personId: ctx.session.personId }, orgId, meta.permission).catch((error: unknown) => {
      throw error instanceof Denied && error.reason === "not_member" ? notOperating() : error;
    });
    checkPlanGate(ctx.config, grant.plan, meta.gate);
  });
  return next();
});

const OPERATING_ONLY = " (the permission is checked in the operating organization, SVC_ANALYTICS_OPERATOR_ORG)";

const catalog = operating
  .meta({
    permission: "analytics.read",
    gate: "reachable",
    summary: `The beacon's closed catalog of events and fields, and what each dashboard metric means${OPERATING_ONLY}`,
  })
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
  .meta({
    permission: "analytics.read",
    gate: "reachable",
    summary: `Totals, daily series, funnel and weekly retention cohorts over the last 7, 28 or 90 days${OPERATING_ONLY}`,
  })
  .input(z.object({ days: Days.default(28).describe("7, 28 or 90; default 28.") }))
  .query(({ ctx, input }) => ctx.transaction((tx) => readOverview(tx, input.days)));

export const analyticsRouter = router({ catalog, overview });
