// analytics.catalog and analytics.overview (analytics.read, and the organization must be the one
// SVC_ANALYTICS_OPERATOR_ORG names; unset: nobody): the installation analytics dashboard. The slug is
// resolved to an organization id on each request and compared by id with the one it named when the
// dashboard was first asked for (pinned): a slug freed and taken by another organization names nobody.
// Reachable whatever the plan: the operating organization reads it, and no plan gates that one.
import { eq } from "drizzle-orm";
import * as z from "zod";
import { analyticsOperatorPins } from "../../db/schema/analytics";
import { Refusal } from "../http/refusal";
import { CHANNELS, COHORT_MIN_FOR_PERCENT, COHORT_WEEKS, EVENT_CATALOG, MAX_BEACON_EVENTS, METRICS, WORKING_SET_DAYS } from "./catalog";
import { OVERVIEW_DAYS, readOverview } from "./overview";
import type { Tx } from "../../db/transaction";
import { addLookup } from "../../db/acting";
import { findOrganizationId } from "../organizations/store";
import { inOrganization, router } from "../rpc/trpc";

/**
 * The operating organization's id: the one `slug` names now, pinned at its first use; null when the
 * slug names nothing, or another organization than the pinned one (the operator names the new one by
 * its own slug, which pins it).
 */
async function operatingOrganization(tx: Tx, slug: string): Promise<string | null> {
  await addLookup(tx, "org_slug", slug);
  const named = await findOrganizationId(tx, slug);
  if (!named) return null;
  // Two first requests pin at once (the console asks for the catalog and the overview together): the
  // one whose insert waits sees the other's pin only in a statement that starts after it committed.
  const pins = analyticsOperatorPins;
  const inserted = await tx
    .insert(pins)
    .values({ slug, operatorOrg: named })
    .onConflictDoNothing({ target: pins.slug })
    .returning({ operatorOrg: pins.operatorOrg });
  const pinned = inserted[0]?.operatorOrg ?? (await tx.select({ operatorOrg: pins.operatorOrg }).from(pins).where(eq(pins.slug, slug)))[0]?.operatorOrg;
  return pinned === named ? named : null;
}

/** After `analytics.read`: the organization acted on must be the operating organization. */
const operating = inOrganization.use(async ({ ctx, next }) => {
  const operatorOrg = ctx.config.analytics.operatorOrg;
  if (operatorOrg === null || (await ctx.transaction((tx) => operatingOrganization(tx, operatorOrg))) !== ctx.org.id) {
    throw new Refusal(
      "forbidden",
      "The installation analytics are read only by owners and admins of the operating organization (SVC_ANALYTICS_OPERATOR_ORG); this is not it.",
    );
  }
  return next();
});

const catalog = operating
  .meta({ permission: "analytics.read", gate: "reachable", summary: "The beacon's closed catalog of events and fields, and what each dashboard metric means" })
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
    summary: "Totals, daily series, funnel and weekly retention cohorts over the last 7, 28 or 90 days",
  })
  .input(z.object({ days: Days.default(28).describe("7, 28 or 90; default 28.") }))
  .query(({ ctx, input }) => ctx.transaction((tx) => readOverview(tx, input.days)));

export const analyticsRouter = router({ catalog, overview });
