// Requesting and calling off an organization's deletion (organization.delete). The request records the
// deletion and the held export's link (shown once; only its hash is kept); the Cron Trigger runs the steps.
import { and, eq, sql } from "drizzle-orm";
import { deletionExports, deletions, deletionSteps } from "../../db/schema/deletion";
import { organizations } from "../../db/schema/organizations";
import type { Tx } from "../../db/transaction";
import { appendAudit } from "../audit";
import { newTokenValue } from "../tokens";
import { hashToken } from "../http/hash";
import { callableOff, type Step } from "./steps";

export interface Actor {
  personId: string;
  label: string;
}

/** In a transaction acting as the organization; null when a deletion is already under way. */
export async function requestDeletion(tx: Tx, orgId: string, actor: Actor): Promise<{ token: string } | null> {
  const [organization] = await tx.select({ slug: organizations.slug }).from(organizations).where(eq(organizations.id, orgId)).for("update");
  const [existing] = await tx.select({ calledOffAt: deletions.calledOffAt }).from(deletions).where(eq(deletions.orgId, orgId));
  if (existing && existing.calledOffAt === null) return null;
  // A deletion called off earlier starts over.
  await tx.delete(deletionSteps).where(eq(deletionSteps.orgId, orgId));
  await tx.delete(deletions).where(eq(deletions.orgId, orgId));
  const token = newTokenValue("export_link");
  const tokenHash = await hashToken(token);
  await tx.insert(deletionExports).values({ tokenHash, orgSlug: organization!.slug });
  await tx.insert(deletions).values({ orgId, requestedBy: actor.personId, exportTokenHash: tokenHash });
  await appendAudit(tx, { orgId, action: "organization.deletion_requested", actorPersonId: actor.personId, actorLabel: actor.label });
  return { token };
}

export type CallOff = { ok: true; subscriptions: string[] } | { ok: false; reason: "none" | "too_late"; step?: Step };

/** Calls the deletion off while it waits; lifts the suspension it made. Answers the subscriptions it had cancelled. */
export async function callOffDeletion(tx: Tx, orgId: string, actor: Actor): Promise<CallOff> {
  const [deletion] = await tx
    .select({ step: deletions.step, calledOffAt: deletions.calledOffAt, cancelledSubscriptions: deletions.cancelledSubscriptions })
    .from(deletions)
    .where(eq(deletions.orgId, orgId))
    .for("update");
  if (!deletion || deletion.calledOffAt !== null) return { ok: false, reason: "none" };
  if (!callableOff(deletion.step)) return { ok: false, reason: "too_late", step: deletion.step };
  await tx.update(deletions).set({ calledOffAt: sql`now()` }).where(eq(deletions.orgId, orgId));
  await tx
    .update(organizations)
    .set({ suspendedAt: null, suspendedReason: null })
    .where(and(eq(organizations.id, orgId), eq(organizations.suspendedReason, "deletion")));
  await appendAudit(tx, {
    orgId,
    action: "organization.deletion_called_off",
    actorPersonId: actor.personId,
    actorLabel: actor.label,
    data: { atStep: deletion.step },
  });
  return { ok: true, subscriptions: deletion.cancelledSubscriptions };
}
