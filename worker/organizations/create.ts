// Creating an organization. Its id is chosen here so the transaction can act as it before the row
// exists (row-level security checks the insert against the chosen organization).
import { organizations, type Plan } from "../../db/schema";
import { inTenant, type Connection, type Tx } from "../../db/transaction";
import { appendAudit } from "../audit/append";

export interface NewOrganization {
  slug: string;
  name?: string;
  plan?: Plan;
  /** Who asked, for the audit log. */
  actorLabel: string;
}

export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

export async function createOrganization(connect: () => Promise<Connection>, request: NewOrganization) {
  const id = crypto.randomUUID();
  return inTenant(connect, id, (tx) => insertOrganization(tx, id, request));
}

/** For a transaction that already acts as `id` and must create the organization with other rows at once. */
export async function insertOrganization(tx: Tx, id: string, request: NewOrganization) {
  const [row] = await tx.db
    .insert(organizations)
    .values({ id, slug: request.slug, name: request.name ?? request.slug, plan: request.plan ?? "free" })
    .returning();
  await appendAudit(tx, { orgId: id, action: "organization.created", actorLabel: request.actorLabel, target: request.slug });
  return row!;
}
