// A heartbeat extends the lease and the deadline, only for the current lease holder: a
// compare-and-set on state and fencing token, on the database clock.
import type { Tx } from "../../db/transaction";
import { LEASE_SECONDS, SILENCE_SECONDS } from "./timing";

export type Heartbeat =
  | { held: true; leaseExpiresAt: string; deadline: string }
  | { held: false; exists: boolean };

export async function heartbeat(tx: Tx, orgId: string, runId: string, leaseId: string): Promise<Heartbeat> {
  const { rows } = await tx.sql.query<{ lease_expires_at: Date; deadline_at: Date }>(
    `UPDATE workload_runs SET lease_expires_at = now() + make_interval(secs => $4), deadline_at = now() + make_interval(secs => $5)
     WHERE org_id = $1 AND id = $2 AND state = 'accepted' AND lease_id = $3 AND deadline_at > now()
     RETURNING lease_expires_at, deadline_at`,
    [orgId, runId, leaseId, LEASE_SECONDS, SILENCE_SECONDS],
  );
  const row = rows[0];
  if (row) return { held: true, leaseExpiresAt: row.lease_expires_at.toISOString(), deadline: row.deadline_at.toISOString() };
  const found = await tx.sql.query("SELECT 1 FROM workload_runs WHERE org_id = $1 AND id = $2", [orgId, runId]);
  return { held: false, exists: found.rows.length > 0 };
}
