// The operating organization (SVC_ANALYTICS_OPERATOR_ORG, a slug): the one whose owners and admins
// read the installation analytics. Its slug is resolved to an organization id on each use and
// compared by id with the one it named when the dashboard was first asked for (pinned): a slug freed
// and taken by another organization names nobody.
import { eq } from "drizzle-orm";
import { analyticsOperatorPins } from "../../db/schema/analytics";
import type { Tx } from "../../db/transaction";
import { addLookup } from "../../db/acting";
import { findOrganizationId } from "../organizations";

/**
 * The operating organization's id: the one `slug` names now, if it is the pinned one; null when the
 * slug names nothing, or another organization than the pinned one (the operator names the new one by
 * its own slug, which pins it). `pin`: the dashboard pins at its first use; the session (which only
 * tells the console whether to offer the page) reads the pin and leaves it to the dashboard.
 */
export async function operatingOrganization(tx: Tx, slug: string, { pin }: { pin: boolean }): Promise<string | null> {
  await addLookup(tx, "org_slug", slug);
  const named = await findOrganizationId(tx, slug);
  if (!named) return null;
  const pins = analyticsOperatorPins;
  const readPin = async () => (await tx.select({ operatorOrg: pins.operatorOrg }).from(pins).where(eq(pins.slug, slug)))[0]?.operatorOrg;
  // Not pinned yet, the session takes the slug's organization for the one the dashboard will pin.
  if (!pin) return ((await readPin()) ?? named) === named ? named : null;
  // Two first requests pin at once (the console asks for the catalog and the overview together): the
  // one whose insert waits sees the other's pin only in a statement that starts after it committed.
  const [inserted] = await tx
    .insert(pins)
    .values({ slug, operatorOrg: named })
    .onConflictDoNothing({ target: pins.slug })
    .returning({ operatorOrg: pins.operatorOrg });
  return (inserted?.operatorOrg ?? (await readPin())) === named ? named : null;
}
