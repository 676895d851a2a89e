// Changing an organization's plan: the one place it happens, audited and kept as billing history in
// the transaction that decided it (the provider's delivery, or the operator's billing.set).
import { eq } from "drizzle-orm";
import { billingHistory } from "../../db/schema/billing";
import { organizations } from "../../db/schema/organizations";
import type { Tx } from "../../db/transaction";
import { appendAudit } from "../audit";
import type { Plan } from "./plan";

export interface PlanChange {
  orgId: string;
  to: Plan;
  source: "provider" | "operator";
  actor: { personId: string | null; label: string };
  /** What decided it: the delivery and subscription, for the history. */
  eventId?: string | null;
  subscription?: { id: string; priceId: string | null; status: string } | null;
  note: string;
}

/** In a transaction acting as the organization; the plan it has now. A change to the same plan records nothing. */
export async function changePlan(tx: Tx, change: PlanChange): Promise<{ from: Plan; to: Plan; changed: boolean }> {
  const [row] = await tx.select({ plan: organizations.plan }).from(organizations).where(eq(organizations.id, change.orgId)).for("update");
  const from = row!.plan;
  if (from === change.to) return { from, to: from, changed: false };
  await tx.update(organizations).set({ plan: change.to }).where(eq(organizations.id, change.orgId));
  await recordHistory(tx, { ...change, from });
  await appendAudit(tx, {
    orgId: change.orgId,
    action: "plan.changed",
    actorPersonId: change.actor.personId,
    actorLabel: change.actor.label,
    data: { from, to: change.to, source: change.source, eventId: change.eventId ?? null, subscriptionId: change.subscription?.id ?? null },
  });
  return { from, to: change.to, changed: true };
}

/** A line of billing history; also for what changed no plan (a subscription for an unknown price). */
export async function recordHistory(tx: Tx, entry: PlanChange & { from: Plan }): Promise<void> {
  await tx.insert(billingHistory).values({
    orgId: entry.orgId,
    source: entry.source,
    eventId: entry.eventId ?? null,
    subscriptionId: entry.subscription?.id ?? null,
    priceId: entry.subscription?.priceId ?? null,
    status: entry.subscription?.status ?? null,
    fromPlan: entry.from,
    toPlan: entry.to,
    note: entry.note,
  });
}
