// Requesting and calling off an organization's deletion (organization.delete). The request records the
// deletion and the held export's link (shown once; only its hash is kept); the Cron Trigger runs the steps.
import type { Tx } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import { hashToken, newTokenValue } from "../tokens/secret";
import { callableOff, type Step } from "./steps";

export interface Actor {
  personId: string;
  label: string;
}

/** In a transaction acting as the organization; null when a deletion is already under way. */
export async function requestDeletion(tx: Tx, orgId: string, actor: Actor): Promise<{ token: string } | null> {
  await tx.sql.query("SELECT 1 FROM organizations WHERE id = $1 FOR UPDATE", [orgId]);
  const existing = await tx.sql.query<{ called_off: boolean }>("SELECT called_off_at IS NOT NULL AS called_off FROM deletions WHERE org_id = $1", [orgId]);
  if (existing.rows[0] && !existing.rows[0].called_off) return null;
  // A deletion called off earlier starts over.
  await tx.sql.query("DELETE FROM deletion_steps WHERE org_id = $1", [orgId]);
  await tx.sql.query("DELETE FROM deletions WHERE org_id = $1", [orgId]);
  const token = newTokenValue("export_link");
  const tokenHash = await hashToken(token);
  const { rows } = await tx.sql.query<{ slug: string }>("SELECT slug FROM organizations WHERE id = $1", [orgId]);
  await tx.sql.query("INSERT INTO deletion_exports (token_hash, org_slug) VALUES ($1, $2)", [tokenHash, rows[0]!.slug]);
  await tx.sql.query("INSERT INTO deletions (org_id, requested_by, export_token_hash) VALUES ($1, $2, $3)", [orgId, actor.personId, tokenHash]);
  await appendAudit(tx, { orgId, action: "organization.deletion_requested", actorPersonId: actor.personId, actorLabel: actor.label });
  return { token };
}

export type CallOff = { ok: true; subscriptions: string[] } | { ok: false; reason: "none" | "too_late"; step?: Step };

/** Calls the deletion off while it waits; lifts the suspension it made. Answers the subscriptions it had cancelled. */
export async function callOffDeletion(tx: Tx, orgId: string, actor: Actor): Promise<CallOff> {
  const { rows } = await tx.sql.query<{ step: Step; called_off: boolean; cancelled_subscriptions: string[] }>(
    "SELECT step, called_off_at IS NOT NULL AS called_off, cancelled_subscriptions FROM deletions WHERE org_id = $1 FOR UPDATE",
    [orgId],
  );
  const deletion = rows[0];
  if (!deletion || deletion.called_off) return { ok: false, reason: "none" };
  if (!callableOff(deletion.step)) return { ok: false, reason: "too_late", step: deletion.step };
  await tx.sql.query("UPDATE deletions SET called_off_at = now() WHERE org_id = $1", [orgId]);
  await tx.sql.query("UPDATE organizations SET suspended_at = NULL, suspended_reason = NULL WHERE id = $1 AND suspended_reason = 'deletion'", [orgId]);
  await appendAudit(tx, {
    orgId,
    action: "organization.deletion_called_off",
    actorPersonId: actor.personId,
    actorLabel: actor.label,
    data: { atStep: deletion.step },
  });
  return { ok: true, subscriptions: deletion.cancelled_subscriptions };
}
