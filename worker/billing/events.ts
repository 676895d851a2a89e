// The provider's deliveries this service acts on (Stripe's event shapes), validated after the
// signature passed. Unknown fields are kept out; unknown event types are recorded and ignored.
import * as z from "zod";
import { text } from "../http/text";

const Id = text({ min: 1, max: 255 });

export const BillingEvent = z.object({
  id: Id,
  type: text({ min: 1, max: 100 }),
  created: z.int().min(0),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});
export type BillingEvent = z.infer<typeof BillingEvent>;

const Metadata = z.record(z.string(), z.string()).nullish();

export const CheckoutSession = z.object({
  id: Id,
  customer: Id.nullish(),
  client_reference_id: text({ max: 255 }).nullish(),
  metadata: Metadata,
});

export const Subscription = z.object({
  id: Id,
  customer: Id,
  status: text({ min: 1, max: 40 }),
  cancel_at_period_end: z.boolean().default(false),
  /** Seconds; newer API versions carry it on the items instead. */
  current_period_end: z.int().nullish(),
  items: z.object({
    data: z.array(z.object({ price: z.object({ id: Id }), current_period_end: z.int().nullish() })),
  }),
  metadata: Metadata,
});
export type Subscription = z.infer<typeof Subscription>;

export const SUBSCRIPTION_EVENTS = new Set(["customer.subscription.created", "customer.subscription.updated", "customer.subscription.deleted"]);
export const CHECKOUT_COMPLETED = "checkout.session.completed";

/** The organization id checkout wrote into the provider's records (ours, so trusted once signed). */
export const orgIdIn = (metadata: Record<string, string> | null | undefined, reference?: string | null) => {
  const candidate = metadata?.org_id ?? reference ?? null;
  return candidate !== null && z.uuid().safeParse(candidate).success ? candidate : null;
};
