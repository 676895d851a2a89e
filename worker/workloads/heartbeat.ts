import { literal, type Piggyback, statement } from "../../db/pipeline";
import { LEASE_SECONDS, SILENCE_SECONDS } from "./timing";

// A heartbeat extends the lease and the deadline, only for the current lease holder: a
// compare-and-set on state and fencing token, on the database clock. One statement without parameters
// (its values literals), sent with the statement that finds and admits the token and the COMMIT: one
// round trip; `svc_heartbeat` (db/migrations/0039_planned_once.sql, planned once per backend) changes
// nothing unless the token was admitted. It also says whether the run exists, for a refusal's 404 or 409.
export type Heartbeat = { held: true; leaseExpiresAt: string; deadline: string } | { held: false; exists: boolean };

export function heartbeat(runId: string, leaseId: string): Piggyback<Heartbeat> {
  return {
    text: statement`SELECT * FROM svc_heartbeat(${literal(runId)}::uuid, ${literal(leaseId)}::uuid, ${literal(LEASE_SECONDS)}, ${literal(SILENCE_SECONDS)})`,
    read: (rows) => {
      const row = rows[0] as { lease_expires_at: Date | string | null; deadline_at: Date | string | null; run_exists: boolean };
      if (row.lease_expires_at === null || row.deadline_at === null) return { held: false, exists: row.run_exists };
      return { held: true, leaseExpiresAt: new Date(row.lease_expires_at).toISOString(), deadline: new Date(row.deadline_at).toISOString() };
    },
  };
}
