import { eq } from "drizzle-orm";
import { organizations } from "../../db/schema";
import type { Tx } from "../../db/transaction";

/** Needs a transaction whose scope names the slug as a lookup (row-level security shows nothing else). */
export async function findOrganizationId(tx: Tx, slug: string): Promise<string | null> {
  const [row] = await tx.db.select({ id: organizations.id }).from(organizations).where(eq(organizations.slug, slug));
  return row?.id ?? null;
}
