// Handling one signed billing delivery exactly once: its event id is recorded by a unique insert in
// the same transaction as its effect (a redelivery, or a concurrent copy, changes nothing; a failed
// handling is retried by the provider's redelivery). Subscription deliveries set the plan; one older
// than what is stored for its subscription never moves anything backwards.
import { actAs, inTransaction, type Connection, type Tx } from "../../db/transaction";
import type { BillingProvider } from "../config/types";
import { validate } from "../http/input";
import { CHECKOUT_COMPLETED, CheckoutSession, orgIdIn, Subscription, SUBSCRIPTION_EVENTS, type BillingEvent } from "./events";
import { changePlan, recordHistory } from "./plan-change";
import { isNewer, planGranted, planOf, stateRank, type Plan, type Stamp } from "./plan";

export type BillingOutcome = "applied" | "ignored" | "duplicate" | "stale";

const PROVIDER = { personId: null, label: "billing provider" };

/** False when the event was handled before. Ids older than the provider's redelivery window (3 days) are pruned. */
async function recordDelivery(tx: Tx, eventId: string): Promise<boolean> {
  const { rowCount } = await tx.sql.query(
    `WITH pruned AS (DELETE FROM billing_deliveries WHERE received_at < now() - interval '30 days')
     INSERT INTO billing_deliveries (event_id) VALUES ($1) ON CONFLICT DO NOTHING`,
    [eventId],
  );
  return rowCount === 1;
}

/** The organization a customer belongs to: known from an earlier checkout, or named by what checkout wrote. */
async function organizationOf(tx: Tx, customerId: string, named: string | null): Promise<string | null> {
  const known = await tx.sql.query<{ org_id: string }>("SELECT org_id FROM billing_customers WHERE customer_id = $1", [customerId]);
  if (known.rows[0]) return known.rows[0].org_id;
  if (!named) return null;
  await actAs(tx, named);
  const exists = await tx.sql.query("SELECT 1 FROM organizations WHERE id = $1", [named]);
  if (!exists.rows[0]) return null;
  await tx.sql.query("INSERT INTO billing_customers (org_id, customer_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", [named, customerId]);
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
  const { rows } = await tx.sql.query<{ created: string; rank: number }>(
    "SELECT extract(epoch FROM event_created)::bigint AS created, state_rank AS rank FROM subscriptions WHERE subscription_id = $1 FOR UPDATE",
    [subscription.id],
  );
  const stored = rows[0] ? { created: Number(rows[0].created), rank: rows[0].rank } : null;
  if (!isNewer(incoming, stored)) return "stale";
  await tx.sql.query(
    `INSERT INTO subscriptions (subscription_id, org_id, customer_id, price_id, status, cancel_at_period_end, current_period_end, event_created, state_rank)
     VALUES ($1, $2, $3, $4, $5, $6, $7, to_timestamp($8), $9)
     ON CONFLICT (subscription_id) DO UPDATE SET price_id = EXCLUDED.price_id, status = EXCLUDED.status,
       cancel_at_period_end = EXCLUDED.cancel_at_period_end, current_period_end = EXCLUDED.current_period_end,
       event_created = EXCLUDED.event_created, state_rank = EXCLUDED.state_rank, updated_at = now()`,
    [
      subscription.id,
      orgId,
      subscription.customer,
      subscription.priceId,
      subscription.status,
      subscription.cancel_at_period_end,
      subscription.periodEnd,
      event.created,
      incoming.rank,
    ],
  );
  const all = await tx.sql.query<{ price_id: string | null; status: string }>("SELECT price_id, status FROM subscriptions WHERE org_id = $1", [orgId]);
  const plan = planOf(
    all.rows.map((row) => ({ priceId: row.price_id, status: row.status })),
    provider,
  );
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
