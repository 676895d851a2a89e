// Billing turned on against the fake provider (fakes/billing), and deliveries signed by the
// provider's own library (stripe), posted to the Worker as the provider would.
import Stripe from "stripe";
import { inject } from "vitest";
import { callWith } from "./http";

export const WEBHOOK_SECRET = "whsec_test_secret_for_billing";
export const TEAM_PRICE = "price_team_test";
export const ENTERPRISE_PRICE = "price_enterprise_test";

/** The variables that turn billing on; `more` adds or (with undefined) removes some. */
export const billingOn = (more: Record<string, string | undefined> = {}) =>
  Object.fromEntries(
    Object.entries({
      SVC_BILLING_SECRET_KEY: "sk_test_billing",
      SVC_BILLING_WEBHOOK_SECRET: WEBHOOK_SECRET,
      SVC_BILLING_PRICE_TEAM: TEAM_PRICE,
      SVC_BILLING_PRICE_ENTERPRISE: ENTERPRISE_PRICE,
      SVC_BILLING_API_BASE: inject("billingBase"),
      ...more,
    }).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );

const crypto = Stripe.createSubtleCryptoProvider();

export const stripeSignature = (payload: string, options: { secret?: string; timestamp?: number } = {}) =>
  Stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: options.secret ?? WEBHOOK_SECRET, timestamp: options.timestamp, cryptoProvider: crypto });

/** Posts `body` to /webhooks/billing with `signature` (by default the provider's own for it). */
export async function deliver(body: string, options: { signature?: string | null; env?: Record<string, string> } = {}) {
  const signature = options.signature === undefined ? await stripeSignature(body) : options.signature;
  return callWith(options.env ?? billingOn(), "/webhooks/billing", {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...(signature === null ? {} : { "stripe-signature": signature }) },
  });
}

let sequence = 0;

/** A subscription event as the provider sends it. */
export function subscriptionEvent(
  type: "created" | "updated" | "deleted",
  subscription: { id: string; customer: string; orgId?: string; price?: string; status?: string; cancelAtPeriodEnd?: boolean },
  created = Math.floor(Date.now() / 1000),
) {
  return {
    id: `evt_test_${Date.now().toString(36)}_${++sequence}`,
    object: "event",
    type: `customer.subscription.${type}`,
    created,
    data: {
      object: {
        id: subscription.id,
        object: "subscription",
        customer: subscription.customer,
        status: subscription.status ?? "active",
        cancel_at_period_end: subscription.cancelAtPeriodEnd ?? false,
        current_period_end: created + 30 * 86_400,
        items: { data: [{ price: { id: subscription.price ?? TEAM_PRICE } }] },
        metadata: subscription.orgId ? { org_id: subscription.orgId } : {},
      },
    },
  };
}

export const fakeBilling = (path: string, init?: RequestInit) => fetch(`${inject("billingBase")}${path}`, init);
