// The slug of an organization made for a code-host account (by the installation webhook, or self-serve
// for a person): the account's login, else the login and the account's numeric id. A slug already
// taken always means another organization (a login can be given up and taken by another account):
// a new organization is never attached to it.
import { addLookup, type Tx } from "../../db/transaction";
import { SLUG_PATTERN } from "./create";
import { findOrganizationId } from "./find";

const MAX_TRIES = 20;

export async function freeSlugFor(tx: Tx, account: { login: string; id: number }): Promise<string> {
  const base = account.login.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+/, "").slice(0, 40) || "account";
  for (let n = 1; n <= MAX_TRIES; n++) {
    const slug = n === 1 ? base : n === 2 ? `${base}-${account.id}` : `${base}-${account.id}-${n - 1}`;
    if (!SLUG_PATTERN.test(slug)) continue;
    await addLookup(tx, "org_slug", slug);
    if (!(await findOrganizationId(tx, slug))) return slug;
  }
  throw new Error("no free organization slug for a code-host account");
}
