import { ACTING_ORG, ADMITTED_TOKEN, literal, type Piggyback, statement } from "../../db/pipeline";
import { LEASE_SECONDS, SILENCE_SECONDS } from "./timing";

// A heartbeat extends the lease and the deadline, only for the current lease holder: a
// compare-and-set on state and fencing token, on the database clock. One statement without parameters
// (its values literals), sent with the statement that finds and admits the token and the COMMIT: one
// round trip; it changes nothing unless the token was admitted (ADMITTED_TOKEN). It also says whether
// the run exists, for a refusal's 404 or 409.
export type Heartbeat = { held: true; leaseExpiresAt: string; deadline: string } | { held: false; exists: boolean };

export function heartbeat(runId: string, leaseId: string): Piggyback<Heartbeat> {
  const [run, lease] = [literal(runId), literal(leaseId)];
  return {
    text: statement`
WITH beat AS (
  UPDATE workload_runs SET lease_expires_at = now() + make_interval(secs => ${literal(LEASE_SECONDS)}),
    deadline_at = now() + make_interval(secs => ${literal(SILENCE_SECONDS)})
  WHERE org_id = ${ACTING_ORG} AND id = ${run} AND state = 'accepted' AND lease_id = ${lease} AND deadline_at > now() AND ${ADMITTED_TOKEN} IS NOT NULL
  RETURNING lease_expires_at, deadline_at
)
SELECT beat.lease_expires_at, beat.deadline_at, EXISTS (SELECT 1 FROM workload_runs WHERE org_id = ${ACTING_ORG} AND id = ${run}) AS exists
FROM (SELECT 1) AS one LEFT JOIN beat ON true`,
    read: (rows) => {
      const row = rows[0] as { lease_expires_at: Date | string | null; deadline_at: Date | string | null; exists: boolean };
      if (row.lease_expires_at === null || row.deadline_at === null) return { held: false, exists: row.exists };
      return { held: true, leaseExpiresAt: new Date(row.lease_expires_at).toISOString(), deadline: new Date(row.deadline_at).toISOString() };
    },
  };
}
