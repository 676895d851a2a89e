// Handling one signed App delivery exactly once: its id is recorded by a unique insert in the same
// transaction as its effect, so a redelivery (or a concurrent copy) changes nothing, and a delivery
// whose handling failed is handled again when the code host redelivers it.
import { inTransaction, type Connection, type Tx, actAs } from "../../db/transaction";
import { validate } from "../http/input";
import { applyInstallationChange, organizationFor, type InstallationChange } from "./installation-sync";
import { InstallationEvent, InstallationRepositoriesEvent } from "./webhook-schemas";

export interface Delivery {
  id: string;
  event: string;
  payload: unknown;
}

export type DeliveryOutcome = "applied" | "ignored" | "duplicate";

/** What a delivery changes, or null for the events and actions this service does not act on. */
function changeOf(delivery: Delivery): InstallationChange | null {
  const action = (delivery.payload as { action?: unknown }).action;
  if (delivery.event === "installation" && InstallationEvent.shape.action.safeParse(action).success) {
    const event = validate(InstallationEvent, delivery.payload);
    return event.action === "created"
      ? { kind: "created", installation: event.installation, repositories: event.repositories ?? [] }
      : { kind: event.action, installation: event.installation };
  }
  if (delivery.event === "installation_repositories" && InstallationRepositoriesEvent.shape.action.safeParse(action).success) {
    const event = validate(InstallationRepositoriesEvent, delivery.payload);
    return event.action === "added"
      ? { kind: "repositories_added", installation: event.installation, repositories: event.repositories_added }
      : { kind: "repositories_removed", installation: event.installation, repositories: event.repositories_removed };
  }
  return null;
}

/** False when the delivery was recorded before. Ids older than the code host's redelivery window are pruned. */
async function recordDelivery(tx: Tx, delivery: Delivery): Promise<boolean> {
  const { rowCount } = await tx.sql.query(
    `WITH pruned AS (DELETE FROM codehost_deliveries WHERE received_at < now() - interval '30 days')
     INSERT INTO codehost_deliveries (delivery_id, event) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
    [delivery.id, delivery.event],
  );
  return rowCount === 1;
}

export async function handleDelivery(connect: () => Promise<Connection>, delivery: Delivery): Promise<DeliveryOutcome> {
  const change = changeOf(delivery);
  if (!change) return inTransaction(connect, {}, async (tx) => ((await recordDelivery(tx, delivery)) ? "ignored" : "duplicate"));
  const { installation } = change;
  const lookups = { codehost_installation: String(installation.id), installation_account: installation.account.login.toLowerCase() };
  return inTransaction(connect, { lookups }, async (tx) => {
    if (!(await recordDelivery(tx, delivery))) return "duplicate";
    // Deliveries about one account apply one at a time: two first deliveries must not both create its organization.
    await tx.sql.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`codehost-account:${installation.account.id}`]);
    const orgId = await organizationFor(tx, change);
    if (!orgId) return "ignored";
    await actAs(tx, orgId);
    await applyInstallationChange(tx, orgId, change);
    return "applied";
  });
}
