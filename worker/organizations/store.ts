// Organizations: creating one (its id is chosen here so the transaction can act as it before the row
// exists; row-level security checks the insert against the chosen organization), finding one by slug,
// and choosing a free slug.
import type { Plan } from "../../db/enums";
import { organizations } from "../../db/schema/organizations";
import { inTenant, type Connection, type Tx } from "../../db/transaction";
import { addLookup } from "../../db/acting";
import { appendAudit } from "../audit";
import { eq } from "drizzle-orm";

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
  const [row] = await tx
    .insert(organizations)
    .values({ id, slug: request.slug, name: request.name ?? request.slug, plan: request.plan ?? "free" })
    .returning();
  await appendAudit(tx, { orgId: id, action: "organization.created", actorLabel: request.actorLabel, target: request.slug });
  return row!;
}

/** Needs a transaction whose scope names the slug as a lookup (row-level security shows nothing else). */
export async function findOrganizationId(tx: Tx, slug: string): Promise<string | null> {
  const [row] = await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.slug, slug));
  return row?.id ?? null;
}

// The slug of an organization made for a code-host account (by the installation webhook, or self-serve
// for a person): the account's login, else the login and the account's numeric id. A slug already
// taken always means another organization (a login can be given up and taken by another account):
// a new organization is never attached to it.
const MAX_TRIES = 20;

export async function freeSlugFor(tx: Tx, account: { login: string; id: number }): Promise<string> {
  const base =
    account.login
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, "-")
      .replace(/^-+/, "")
      .slice(0, 40) || "account";
  for (let n = 1; n <= MAX_TRIES; n++) {
    const slug = n === 1 ? base : n === 2 ? `${base}-${account.id}` : `${base}-${account.id}-${n - 1}`;
    if (!SLUG_PATTERN.test(slug)) continue;
    await addLookup(tx, "org_slug", slug);
    if (!(await findOrganizationId(tx, slug))) return slug;
  }
  throw new Error("no free organization slug for a code-host account");
}
