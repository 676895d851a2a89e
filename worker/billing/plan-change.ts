// Changing an organization's plan: the one place it happens, audited and kept as billing history in
// the transaction that decided it (the provider's delivery, or the operator's billing.set).
import type { Tx } from "../../db/transaction";
import { appendAudit } from "../audit/append";
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
  const { rows } = await tx.sql.query<{ plan: Plan }>("SELECT plan FROM organizations WHERE id = $1 FOR UPDATE", [change.orgId]);
  const from = rows[0]!.plan;
  if (from === change.to) return { from, to: from, changed: false };
  await tx.sql.query("UPDATE organizations SET plan = $2 WHERE id = $1", [change.orgId, change.to]);
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
  await tx.sql.query(
    `INSERT INTO billing_history (org_id, source, event_id, subscription_id, price_id, status, from_plan, to_plan, note)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      entry.orgId,
      entry.source,
      entry.eventId ?? null,
      entry.subscription?.id ?? null,
      entry.subscription?.priceId ?? null,
      entry.subscription?.status ?? null,
      entry.from,
      entry.to,
      entry.note,
    ],
  );
}
