import type { Tx } from "../../db/transaction";

/**
 * Makes a transaction act as an organization it learned mid-way (from a lookup, or one it is about to
 * create). From here on row-level security shows and accepts that organization's rows.
 */
export async function actAs(tx: Tx, orgId: string): Promise<void> {
  await tx.sql.query("SELECT set_config('app.org_id', $1, true)", [orgId]);
}
