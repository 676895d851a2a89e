// Handling one signed billing delivery exactly once: its event id is recorded by a unique insert in
// the same transaction as its effect (a redelivery, or a concurrent copy, changes nothing; a failed
// handling is retried by the provider's redelivery). Subscription deliveries set the plan; one older
// than what is stored for its subscription never moves anything backwards.
import { eq, sql } from "drizzle-orm";
import { billingCustomers, subscriptions } from "../../db/schema/billing";
import { organizations } from "../../db/schema/organizations";
import { inTransaction, type Connection, type Tx } from "../../db/transaction";
import { actAs } from "../../db/acting";
import type { BillingProvider } from "../config/types";
import { validate } from "../http/input";
import { CHECKOUT_COMPLETED, CheckoutSession, orgIdIn, Subscription, SUBSCRIPTION_EVENTS, type BillingEvent } from "./events";
import { changePlan, recordHistory } from "./plan-change";
import { isNewer, planGranted, planOf, stateRank, type Plan, type Stamp } from "./plan";

export type BillingOutcome = "applied" | "ignored" | "duplicate" | "stale";

const PROVIDER = { personId: null, label: "billing provider" };

/** False when the event was handled before. Ids older than the provider's redelivery window (3 days) are pruned. */
async function recordDelivery(tx: Tx, eventId: string): Promise<boolean> {
  const { rowCount } = await tx.execute(sql`WITH pruned AS (DELETE FROM billing_deliveries WHERE received_at < now() - interval '30 days')
     INSERT INTO billing_deliveries (event_id) VALUES (${eventId}) ON CONFLICT DO NOTHING`);
  return rowCount === 1;
}

/** The organization a customer belongs to: known from an earlier checkout, or named by what checkout wrote. */
async function organizationOf(tx: Tx, customerId: string, named: string | null): Promise<string | null> {
  const [known] = await tx.select({ orgId: billingCustomers.orgId }).from(billingCustomers).where(eq(billingCustomers.customerId, customerId));
  if (known) return known.orgId;
  if (!named) return null;
  await actAs(tx, named);
  const [exists] = await tx.select({ one: sql`1` }).from(organizations).where(eq(organizations.id, named));
  if (!exists) return null;
  await tx.insert(billingCustomers).values({ orgId: named, customerId }).onConflictDoNothing();
  return named;
}

function subscriptionOf(event: BillingEvent) {
  const subscription = validate(Subscription, event.data.object);
  const item = subscription.items.data[0];
  const periodEnd = subscription.current_period_end ?? item?.current_period_end ?? null;
  // A deleted subscription has ended whatever status the object still shows.
  const status = event.type === "customer.subscription.deleted" ? "canceled" : subscription.status;
  return { ...subscription, status, priceId: item?.price.id ?? null, periodEnd: periodEnd === null ? null : new Date(periodEnd * 1000) };
}

async function applySubscription(tx: Tx, provider: BillingProvider, event: BillingEvent, orgId: string): Promise<BillingOutcome> {
  const subscription = subscriptionOf(event);
  const incoming: Stamp = { created: event.created, rank: stateRank(subscription.status) };
  const [row] = await tx
    .select({ created: sql<string>`extract(epoch FROM ${subscriptions.eventCreated})::bigint`, rank: subscriptions.stateRank })
    .from(subscriptions)
    .where(eq(subscriptions.subscriptionId, subscription.id))
    .for("update");
  const stored = row ? { created: Number(row.created), rank: row.rank } : null;
  if (!isNewer(incoming, stored)) return "stale";
  await tx
    .insert(subscriptions)
    .values({
      subscriptionId: subscription.id,
      orgId,
      customerId: subscription.customer,
      priceId: subscription.priceId,
      status: subscription.status,
      cancelAtPeriodEnd: subscription.cancel_at_period_end,
      currentPeriodEnd: subscription.periodEnd,
      eventCreated: sql`to_timestamp(${event.created})`,
      stateRank: incoming.rank,
    })
    .onConflictDoUpdate({
      target: subscriptions.subscriptionId,
      set: {
        priceId: sql`excluded.price_id`,
        status: sql`excluded.status`,
        cancelAtPeriodEnd: sql`excluded.cancel_at_period_end`,
        currentPeriodEnd: sql`excluded.current_period_end`,
        eventCreated: sql`excluded.event_created`,
        stateRank: sql`excluded.state_rank`,
        updatedAt: sql`now()`,
      },
    });
  const all = await tx.select({ priceId: subscriptions.priceId, status: subscriptions.status }).from(subscriptions).where(eq(subscriptions.orgId, orgId));
  const plan = planOf(all, provider);
  const recorded = { id: subscription.id, priceId: subscription.priceId, status: subscription.status };
  const changed = await changePlan(tx, {
    orgId,
    to: plan,
    source: "provider",
    actor: PROVIDER,
    eventId: event.id,
    subscription: recorded,
    note: `subscription ${subscription.status}`,
  });
  if (!changed.changed && planGranted(subscription, provider) === null && subscription.status !== "canceled") {
    // A subscription for a price that is neither plan's is kept on record, and changes nothing.
    await recordHistory(tx, {
      orgId,
      to: changed.to,
      from: changed.from as Plan,
      source: "provider",
      actor: PROVIDER,
      eventId: event.id,
      subscription: recorded,
      note: "subscription for a price that is not a plan's; plan unchanged",
    });
  }
  return "applied";
}

export async function handleBillingEvent(connect: () => Promise<Connection>, provider: BillingProvider, event: BillingEvent): Promise<BillingOutcome> {
  const isSubscription = SUBSCRIPTION_EVENTS.has(event.type);
  if (!isSubscription && event.type !== CHECKOUT_COMPLETED) {
    return inTransaction(connect, {}, async (tx) => ((await recordDelivery(tx, event.id)) ? "ignored" : "duplicate"));
  }
  const object = isSubscription ? validate(Subscription, event.data.object) : validate(CheckoutSession, event.data.object);
  const customer = object.customer ?? null;
  const named = orgIdIn(object.metadata, "client_reference_id" in object ? object.client_reference_id : null);
  return inTransaction(connect, customer ? { lookups: { billing_customer: customer } } : {}, async (tx) => {
    if (!(await recordDelivery(tx, event.id))) return "duplicate";
    const orgId = customer ? await organizationOf(tx, customer, named) : null;
    if (!orgId) return "ignored";
    await actAs(tx, orgId);
    return isSubscription ? applySubscription(tx, provider, event, orgId) : "applied";
  });
}
