// billing.get, billing.portal, billing.set and subscriptions.checkout (billing.manage, owners): the
// plan, the subscription and billing history; checkout and the customer portal at the provider;
// the operator-decided plan (spec: Authentication rule 8, Other refusals).
import * as z from "zod";
import { Refusal } from "../http/refusal";
import { changePlan } from "./plan-change";
import { PLANS } from "../../db/enums";
import { BILLING_OFF, BillingUnreachable, callBilling, describeBillingAnswer } from "./provider";
import type { BillingProvider } from "../config/types";
import { inOrganization, router, type OrgContext } from "../rpc/trpc";
import type { Tx } from "../../db/transaction";

const iso = (date: Date | null) => date?.toISOString() ?? null;

function providerOf(ctx: OrgContext): BillingProvider {
  const { provider } = ctx.config.billing;
  if (!provider) throw new Refusal("not_configured", BILLING_OFF);
  return provider;
}

async function customerOf(tx: Tx, orgId: string): Promise<string | null> {
  const { rows } = await tx.sql.query<{ customer_id: string }>("SELECT customer_id FROM billing_customers WHERE org_id = $1", [orgId]);
  return rows[0]?.customer_id ?? null;
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
  .meta({ permission: "billing.manage", gate: "reachable", summary: "The plan, the subscriptions as the provider last described them, and billing history" })
  .query(({ ctx }) =>
    ctx.transaction(async (tx) => {
      const org = await tx.sql.query<{ plan: string }>("SELECT plan FROM organizations WHERE id = $1", [ctx.org.id]);
      const subscriptions = await tx.sql.query<{
        subscription_id: string;
        price_id: string | null;
        status: string;
        cancel_at_period_end: boolean;
        current_period_end: Date | null;
      }>(
        "SELECT subscription_id, price_id, status, cancel_at_period_end, current_period_end FROM subscriptions WHERE org_id = $1 ORDER BY event_created DESC",
        [ctx.org.id],
      );
      const history = await tx.sql.query<{ at: Date; source: string; from_plan: string; to_plan: string; status: string | null; note: string }>(
        "SELECT at, source, from_plan, to_plan, status, note FROM billing_history WHERE org_id = $1 ORDER BY id DESC LIMIT 100",
        [ctx.org.id],
      );
      const { provider, operatorSetsPlan, hostedRequiredPlan } = ctx.config.billing;
      return {
        plan: org.rows[0]!.plan,
        billing: { on: provider !== null, enterpriseCheckout: provider?.enterprisePrice != null, operatorSetsPlan, requiredPlan: hostedRequiredPlan },
        hasCustomer: (await customerOf(tx, ctx.org.id)) !== null,
        subscriptions: subscriptions.rows.map((row) => ({
          id: row.subscription_id,
          priceId: row.price_id,
          status: row.status,
          cancelAtPeriodEnd: row.cancel_at_period_end,
          currentPeriodEnd: iso(row.current_period_end),
        })),
        history: history.rows.map((row) => ({
          at: row.at.toISOString(),
          source: row.source,
          from: row.from_plan,
          to: row.to_plan,
          status: row.status,
          note: row.note,
        })),
      };
    }),
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

export const billingRouter = router({ get, portal, set });
export const subscriptionsRouter = router({ checkout });
