// The held export of a deleted organization outlives it only as long as its link: once the link has
// expired, the sweep removes the object from the exports bucket, then marks the export destroyed.
import type { SqlClient } from "../../db/sql-client";

const BATCH = 100;

/** As the maintenance role, which sees only held exports whose link expired; answers how many went. */
export async function destroyExpiredExports(maintenance: SqlClient, bucket: R2Bucket | undefined): Promise<number> {
  if (!bucket) return 0;
  const { rows } = await maintenance.query<{ token_hash: string; object_key: string }>(
    "SELECT token_hash, object_key FROM deletion_exports WHERE destroyed_at IS NULL ORDER BY expires_at LIMIT $1",
    [BATCH],
  );
  if (rows.length === 0) return 0;
  // The objects first, outside any transaction: a failure leaves the rows to be found again.
  await bucket.delete(rows.map((row) => row.object_key));
  await maintenance.query("UPDATE deletion_exports SET destroyed_at = now() WHERE token_hash = ANY($1)", [rows.map((row) => row.token_hash)]);
  return rows.length;
}
