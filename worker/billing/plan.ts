// Which plan an organization's subscriptions grant, and which of two descriptions of a subscription
// is the newer. Pure: the delivery handler reads and writes.
import type { Plan } from "../../db/enums";
import type { BillingProvider } from "../config/types";

export type { Plan };

/** Statuses under which the provider still grants the subscription's plan. */
const GRANTING = new Set(["active", "trialing", "past_due"]);

/**
 * How far along its life a status is: two deliveries stamped the same second are ordered by it, so
 * an ended subscription is never revived by an older "active" that arrives late.
 */
const RANK: Record<string, number> = { incomplete: 0, trialing: 1, active: 2, past_due: 3, unpaid: 4, incomplete_expired: 5, canceled: 6 };
export const stateRank = (status: string) => RANK[status] ?? 0;

export interface SubscriptionState {
  priceId: string | null;
  status: string;
}

/** The plan one subscription grants: null for a price that is neither plan's (recorded, grants nothing). */
export function planGranted(subscription: SubscriptionState, provider: BillingProvider): Plan | null {
  if (!GRANTING.has(subscription.status)) return null;
  if (subscription.priceId === provider.teamPrice) return "team";
  if (provider.enterprisePrice !== null && subscription.priceId === provider.enterprisePrice) return "enterprise";
  return null;
}

/** The best plan any of the organization's subscriptions grants; free when none does. */
export function planOf(subscriptions: readonly SubscriptionState[], provider: BillingProvider): Plan {
  const granted = new Set(subscriptions.map((subscription) => planGranted(subscription, provider)));
  return granted.has("enterprise") ? "enterprise" : granted.has("team") ? "team" : "free";
}

export interface Stamp {
  /** The provider's event time, in seconds. */
  created: number;
  rank: number;
}

/** Whether a delivery stamped `incoming` may replace what `stored` recorded: newer, or as new and further along. */
export const isNewer = (incoming: Stamp, stored: Stamp | null) =>
  stored === null || incoming.created > stored.created || (incoming.created === stored.created && incoming.rank > stored.rank);
