// billing.get, billing.portal, billing.set and subscriptions.checkout (billing.manage, owners): the
// plan, the subscription and billing history; checkout and the customer portal at the provider;
// the operator-decided plan (spec: Authentication rule 8, Other refusals).
import { and, desc, eq, lt } from "drizzle-orm";
import * as z from "zod";
import { billingCustomers, billingHistory, subscriptions } from "../../db/schema/billing";
import { organizations } from "../../db/schema/organizations";
import { Refusal } from "../http/refusal";
import { changePlan } from "./plan-change";
import { PLANS } from "../../db/enums";
import { BILLING_OFF, BillingUnreachable, callBilling, describeBillingAnswer } from "./provider";
import type { BillingProvider } from "../config/types";
import { inOrganization, router, type OrgContext } from "../trpc/builder";
import type { Tx } from "../../db/transaction";
import { decodeCursor, KeySeq, Paging, pageOf } from "../http/paging";

const iso = (date: Date | null) => date?.toISOString() ?? null;

function providerOf(ctx: OrgContext): BillingProvider {
  const { provider } = ctx.config.billing;
  if (!provider) throw new Refusal("not_configured", BILLING_OFF);
  return provider;
}

async function customerOf(tx: Tx, orgId: string): Promise<string | null> {
  const [row] = await tx.select({ customerId: billingCustomers.customerId }).from(billingCustomers).where(eq(billingCustomers.orgId, orgId));
  return row?.customerId ?? null;
}

/** A provider call (made with no transaction open) whose answer must carry an address for the browser to go to. */
async function providerUrl(ctx: OrgContext, provider: BillingProvider, path: string, form: Record<string, string>, what: string): Promise<string> {
  const answer = await callBilling(ctx.config.billing, provider, path, form).catch((error: unknown) => {
    if (error instanceof BillingUnreachable) throw new Refusal("billing_refused", `${error.message} Nothing was started; try again.`);
    throw error;
  });
  const url = answer.body?.url;
  if (answer.status !== 200 || typeof url !== "string") {
    throw new Refusal("billing_refused", `The billing provider refused to start ${what} (${describeBillingAnswer(answer)}).`);
  }
  return url;
}

const get = inOrganization
  .meta({
    permission: "billing.manage",
    gate: "reachable",
    summary: "The plan and the subscriptions as the provider last described them (billing.history lists the changes)",
  })
  .query(({ ctx }) =>
    ctx.transaction(async (tx) => {
      const [org] = await tx.select({ plan: organizations.plan }).from(organizations).where(eq(organizations.id, ctx.org.id));
      const subscriptionRows = await tx
        .select({
          subscriptionId: subscriptions.subscriptionId,
          priceId: subscriptions.priceId,
          status: subscriptions.status,
          cancelAtPeriodEnd: subscriptions.cancelAtPeriodEnd,
          currentPeriodEnd: subscriptions.currentPeriodEnd,
        })
        .from(subscriptions)
        .where(eq(subscriptions.orgId, ctx.org.id))
        .orderBy(desc(subscriptions.eventCreated));
      const { provider, operatorSetsPlan, hostedRequiredPlan } = ctx.config.billing;
      return {
        plan: org!.plan as string,
        billing: { on: provider !== null, enterpriseCheckout: provider?.enterprisePrice != null, operatorSetsPlan, requiredPlan: hostedRequiredPlan },
        hasCustomer: (await customerOf(tx, ctx.org.id)) !== null,
        subscriptions: subscriptionRows.map((row) => ({
          id: row.subscriptionId,
          priceId: row.priceId,
          status: row.status,
          cancelAtPeriodEnd: row.cancelAtPeriodEnd,
          currentPeriodEnd: iso(row.currentPeriodEnd),
        })),
      };
    }),
  );

/** A page of the organization's billing history, newest first, before `after`'s id (index billing_history_org). */
export const billingHistoryPage = (tx: Tx, orgId: string, after: readonly [number] | null, limit: number) =>
  tx
    .select({
      id: billingHistory.id,
      at: billingHistory.at,
      source: billingHistory.source,
      fromPlan: billingHistory.fromPlan,
      toPlan: billingHistory.toPlan,
      status: billingHistory.status,
      note: billingHistory.note,
    })
    .from(billingHistory)
    .where(and(eq(billingHistory.orgId, orgId), after === null ? undefined : lt(billingHistory.id, after[0])))
    .orderBy(desc(billingHistory.id))
    .limit(limit);

const history = inOrganization
  .meta({ permission: "billing.manage", gate: "reachable", summary: "Billing history, newest first: each plan change, its source and status (paged)" })
  .input(z.object({ ...Paging }))
  .query(({ ctx, input }) =>
    ctx.transaction(async (tx) =>
      pageOf(
        await billingHistoryPage(tx, ctx.org.id, decodeCursor(input.cursor, [KeySeq]), input.limit + 1),
        input.limit,
        (row) => [row.id],
        (row) => ({ at: row.at.toISOString(), source: row.source as string, from: row.fromPlan, to: row.toPlan, status: row.status, note: row.note }),
      ),
    ),
  );

const checkout = inOrganization
  .meta({
    permission: "billing.manage",
    gate: "reachable",
    summary: "Start a checkout at the billing provider for the team or enterprise plan; answers its address",
  })
  .input(z.object({ plan: z.enum(["team", "enterprise"]) }))
  .mutation(async ({ ctx, input }) => {
    const provider = providerOf(ctx);
    const price = input.plan === "team" ? provider.teamPrice : provider.enterprisePrice;
    if (price === null) {
      throw new Refusal("plan_not_for_sale", "The enterprise plan is agreed with a person, not bought here: contact us and we will set it up with you.");
    }
    const customer = await ctx.transaction((tx) => customerOf(tx, ctx.org.id));
    const back = `${ctx.origin}/billing`;
    const url = await providerUrl(
      ctx,
      provider,
      "/v1/checkout/sessions",
      {
        mode: "subscription",
        "line_items[0][price]": price,
        "line_items[0][quantity]": "1",
        success_url: `${back}?checkout=done`,
        cancel_url: `${back}?checkout=cancelled`,
        // Ours, written into the provider's records: its deliveries name the organization with them.
        client_reference_id: ctx.org.id,
        "metadata[org_id]": ctx.org.id,
        "subscription_data[metadata][org_id]": ctx.org.id,
        ...(customer ? { customer } : {}),
      },
      "a checkout",
    );
    return { url };
  });

const portal = inOrganization
  .meta({ permission: "billing.manage", gate: "reachable", summary: "An address of the billing provider's customer portal: payment method and invoices" })
  .mutation(async ({ ctx }) => {
    const provider = providerOf(ctx);
    const customer = await ctx.transaction((tx) => customerOf(tx, ctx.org.id));
    if (!customer) throw new Refusal("billing_account_missing", "This organization has no billing account yet: subscribe to a plan first.");
    return { url: await providerUrl(ctx, provider, "/v1/billing_portal/sessions", { customer, return_url: `${ctx.origin}/billing` }, "the customer portal") };
  });

const set = inOrganization
  .meta({
    permission: "billing.manage",
    gate: "reachable",
    summary: "Set the plan directly, on installations where the operator decides plans (SVC_OPERATOR_SETS_PLAN=1)",
  })
  .input(z.object({ plan: z.enum(PLANS) }))
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      if (!ctx.config.billing.operatorSetsPlan) {
        throw new Refusal(
          "not_configured",
          "Plans here come only from the billing provider; billing.set works where the operator decides plans (SVC_OPERATOR_SETS_PLAN=1).",
        );
      }
      const changed = await changePlan(tx, {
        orgId: ctx.org.id,
        to: input.plan,
        source: "operator",
        actor: { personId: ctx.actor.actorPersonId, label: ctx.actor.actorLabel },
        note: "set on the console",
      });
      return { plan: changed.to, from: changed.from, changed: changed.changed };
    }),
  );

export const billingRouter = router({ get, history, portal, set });
export const subscriptionsRouter = router({ checkout });
