// Handling one signed App delivery exactly once: its id and the SHA-256 of its signed body are recorded
// by a unique insert in the same transaction as its effect, so a redelivery (or a concurrent copy), and
// a captured delivery replayed under another id, change nothing; a delivery whose handling failed is
// handled again when the code host redelivers it.
import { eq, sql } from "drizzle-orm";
import { codehostDeliveries } from "../../db/schema/codehost";
import { inTransaction, type Connection, type Tx } from "../../db/transaction";
import { actAs } from "../../db/acting";
import { describeIssue } from "../http/input";
import { applyInstallationChange, organizationFor, type InstallationChange } from "./installation-sync";
import { InstallationEvent, InstallationRepositoriesEvent, InstallationTargetEvent } from "./webhook-schemas";

export interface Delivery {
  id: string;
  event: string;
  payload: unknown;
  /** Hex SHA-256 of the raw body whose signature passed. */
  bodySha256: string;
}

type Recorded = "applied" | "ignored" | "refused";
export type DeliveryOutcome = Recorded | "duplicate";
export type Handled = { outcome: DeliveryOutcome; reason?: string };

/**
 * What a delivery changes; null for the events and actions this service does not act on; a reason
 * when an acted-on delivery breaks its shape (a field missing, too long, or text PostgreSQL cannot
 * store, such as a NUL character in a login).
 */
function changeOf(delivery: Delivery): InstallationChange | null | { refused: string } {
  const action = (delivery.payload as { action?: unknown }).action;
  const schema =
    delivery.event === "installation" && InstallationEvent.shape.action.safeParse(action).success
      ? InstallationEvent
      : delivery.event === "installation_repositories" && InstallationRepositoriesEvent.shape.action.safeParse(action).success
        ? InstallationRepositoriesEvent
        : delivery.event === "installation_target" && InstallationTargetEvent.shape.action.safeParse(action).success
          ? InstallationTargetEvent
          : null;
  if (!schema) return null;
  const parsed = schema.safeParse(delivery.payload);
  if (!parsed.success) return { refused: `The ${delivery.event} delivery is not one this service can take: ${describeIssue(parsed.error.issues[0]!)}.` };
  const event = parsed.data;
  switch (event.action) {
    case "renamed":
      return { kind: "renamed", installation: { id: event.installation.id, account: event.account } };
    case "created":
      return { kind: "created", installation: event.installation, repositories: event.repositories ?? [] };
    case "added":
      return { kind: "repositories_added", installation: event.installation, repositories: event.repositories_added };
    case "removed":
      return { kind: "repositories_removed", installation: event.installation, repositories: event.repositories_removed };
    default:
      return { kind: event.action, installation: event.installation };
  }
}

/**
 * False when the delivery was recorded before: its id, or its body under another id (a replay; either
 * unique key conflicts). Rows older than the code host's redelivery window are pruned.
 */
async function recordDelivery(tx: Tx, delivery: Delivery, outcome: Recorded): Promise<boolean> {
  const { rowCount } = await tx.execute(sql`WITH pruned AS (DELETE FROM codehost_deliveries WHERE received_at < now() - interval '30 days')
     INSERT INTO codehost_deliveries (delivery_id, event, outcome, body_sha256) VALUES (${delivery.id}, ${delivery.event}, ${outcome}, ${delivery.bodySha256}) ON CONFLICT DO NOTHING`);
  return rowCount === 1;
}

/** Records a delivery that changes nothing; a redelivery of it is a duplicate. */
const recordOnly = (connect: () => Promise<Connection>, delivery: Delivery, outcome: Recorded) =>
  inTransaction(connect, {}, async (tx): Promise<DeliveryOutcome> => ((await recordDelivery(tx, delivery, outcome)) ? outcome : "duplicate"));

export async function handleDelivery(connect: () => Promise<Connection>, delivery: Delivery): Promise<Handled> {
  const change = changeOf(delivery);
  if (!change) return { outcome: await recordOnly(connect, delivery, "ignored") };
  if ("refused" in change) {
    const outcome = await recordOnly(connect, delivery, "refused");
    return outcome === "refused" ? { outcome, reason: change.refused } : { outcome };
  }
  const { installation } = change;
  const lookups = { codehost_installation: String(installation.id), installation_account_id: String(installation.account.id) };
  const outcome = await inTransaction(connect, { lookups }, async (tx): Promise<DeliveryOutcome> => {
    if (!(await recordDelivery(tx, delivery, "applied"))) return "duplicate";
    // Deliveries about one account apply one at a time: two first deliveries must not both create its organization.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`codehost-account:${installation.account.id}`}, 0))`);
    const orgId = await organizationFor(tx, change);
    if (!orgId) {
      await tx.update(codehostDeliveries).set({ outcome: "ignored" }).where(eq(codehostDeliveries.deliveryId, delivery.id));
      return "ignored";
    }
    await actAs(tx, orgId);
    await applyInstallationChange(tx, orgId, change);
    return "applied";
  });
  return { outcome };
}
