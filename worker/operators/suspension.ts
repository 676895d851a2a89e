// Suspending an organization (with the operator's reason, which its members read in the console) and
// lifting it, as the operator decides: written as the application role acting for that one
// organization (never across tenants) and audited in its own log. A suspended
// organization's engines get 403 with retryAfterSeconds on ingestion and the work endpoints, while
// command claims still work (worker/auth/bearer.ts); its model clients' grants are revoked, and while
// it lasts (a deletion's too) consent, the code's redemption and /mcp refuse it (worker/mcp). A
// suspension for deletion is the deletion's own: the operator cannot lift it; calling the deletion off does.
import { eq, sql } from "drizzle-orm";
import { organizations } from "../../db/schema/organizations";
import { inTenant, type Connection, type Tx } from "../../db/transaction";
import { appendAudit } from "../audit";
import { revokeOrganizationGrants } from "../mcp";

export type SuspensionOutcome = { outcome: "changed" | "unchanged"; suspended: boolean } | { outcome: "not_found" } | { outcome: "deletion" };

interface Operator {
  login: string;
}

const label = (operator: Operator) => `operator ${operator.login}`;

async function current(tx: Tx, orgId: string) {
  const [row] = await tx
    .select({ suspendedAt: organizations.suspendedAt, reason: organizations.suspendedReason })
    .from(organizations)
    .where(eq(organizations.id, orgId))
    .for("update");
  return row ? { suspended: row.suspendedAt !== null, reason: row.reason } : null;
}

export function suspendOrganization(connect: () => Promise<Connection>, orgId: string, operator: Operator, reason: string): Promise<SuspensionOutcome> {
  return inTenant(connect, orgId, async (tx) => {
    const org = await current(tx, orgId);
    if (!org) return { outcome: "not_found" };
    if (org.suspended) return { outcome: "unchanged", suspended: true };
    await tx.update(organizations).set({ suspendedAt: sql`now()`, suspendedReason: "operator", suspendedBecause: reason }).where(eq(organizations.id, orgId));
    // Model clients stop at once; lifting the suspension does not revive them.
    const clientsDisconnected = await revokeOrganizationGrants(tx, orgId, "organization_suspended");
    await appendAudit(tx, { orgId, action: "organization.suspended", actorLabel: label(operator), data: { by: "operator", reason, clientsDisconnected } });
    return { outcome: "changed", suspended: true };
  });
}

export function liftSuspension(connect: () => Promise<Connection>, orgId: string, operator: Operator): Promise<SuspensionOutcome> {
  return inTenant(connect, orgId, async (tx) => {
    const org = await current(tx, orgId);
    if (!org) return { outcome: "not_found" };
    if (!org.suspended) return { outcome: "unchanged", suspended: false };
    if (org.reason === "deletion") return { outcome: "deletion" };
    await tx.update(organizations).set({ suspendedAt: null, suspendedReason: null, suspendedBecause: null }).where(eq(organizations.id, orgId));
    await appendAudit(tx, { orgId, action: "organization.unsuspended", actorLabel: label(operator), data: { by: "operator" } });
    return { outcome: "changed", suspended: false };
  });
}
