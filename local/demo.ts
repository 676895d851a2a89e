// The demo organization `npm start` makes sure of.
import { inTransaction } from "../db/transaction";
import { nodePool } from "../db/node-pool";
import { createOrganization, findOrganizationId } from "../worker/organizations/store";

export const DEMO_SLUG = "demo";

export async function ensureDemoOrganization(appUrl: string): Promise<void> {
  const pool = nodePool(appUrl, "svc_app");
  try {
    const existing = await inTransaction(pool.connect, { lookups: { org_slug: DEMO_SLUG } }, (tx) => findOrganizationId(tx, DEMO_SLUG));
    if (!existing) await createOrganization(pool.connect, { slug: DEMO_SLUG, name: "Demo organization", actorLabel: "npm start" });
  } finally {
    await pool.end();
  }
}
