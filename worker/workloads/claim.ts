// Claiming: the oldest run of the environment that is waiting, or whose lease expired after missed
// heartbeats (the new claimer takes it over), moves to accepted with a fresh lease. SKIP LOCKED lets
// concurrent claimers each take a different run: exactly one engine gets each.
import { ADMITTED_TOKEN, literal, type Piggyback, statement } from "../../db/pipeline";
import { LEASE_SECONDS, SILENCE_SECONDS } from "./timing";

export interface ClaimedRun {
  id: string;
  envId: string;
  requestedAt: string;
  workload: { id: string; name: string };
  version: { id: string; number: number; compiled: object };
  lease: { id: string; attempt: number; expiresAt: string };
  deadline: string;
}

/**
 * The oldest run of the environment a claim may take: the oldest requested run and the oldest whose
 * lease lapsed, each the first row of its own index in the claim's order (workload_runs_claimable,
 * workload_runs_leases), whichever was requested first. One query over both states could only read
 * every waiting and held run of the environment and sort them, for each claim (issue 36). Both are
 * locked; the one not taken is free again at the COMMIT that follows in the same round trip.
 */
export const candidateStatement = (orgId: string, envId: string) => {
  const [org, env] = [literal(orgId), literal(envId)];
  return statement`
WITH waiting AS (
  SELECT id, requested_at FROM workload_runs
  WHERE org_id = ${org} AND env_id = ${env} AND state = 'requested' AND deadline_at > now()
  ORDER BY requested_at, id
  LIMIT 1
  FOR UPDATE SKIP LOCKED
), lapsed AS (
  SELECT id, requested_at FROM workload_runs
  WHERE org_id = ${org} AND env_id = ${env} AND state = 'accepted' AND lease_expires_at <= now() AND deadline_at > now()
  ORDER BY requested_at, id
  LIMIT 1
  FOR UPDATE SKIP LOCKED
)
SELECT id FROM (SELECT * FROM waiting UNION ALL SELECT * FROM lapsed) AS either ORDER BY requested_at, id LIMIT 1`;
};

/**
 * The claim as one statement without parameters (its values literals), so the transaction sends it
 * with its COMMIT (db/pipeline.ts), for the token the transaction admitted (ADMITTED_TOKEN: none, no
 * claim). The lease id is the engine's `claimId` when it sent one: a claim
 * retried with the same id by the same token, while the run it took is still held under that lease,
 * answers that run again instead of taking a second one (its first answer may have been lost with a
 * connection that dropped after the COMMIT).
 */
const claimStatement = (orgId: string, envId: string, leaseId: string) => {
  const [org, env, lease, token] = [literal(orgId), literal(envId), literal(leaseId), ADMITTED_TOKEN];
  return statement`
WITH again AS (
  SELECT * FROM workload_runs
  WHERE org_id = ${org} AND env_id = ${env} AND state = 'accepted' AND lease_id = ${lease}::uuid AND holder_token_id = ${token}
), candidate AS (${candidateStatement(orgId, envId)}), claimed AS (
  UPDATE workload_runs r SET
    state = 'accepted', lease_id = ${lease}, lease_ids = array_append(r.lease_ids, ${lease}::uuid),
    lease_expires_at = now() + make_interval(secs => ${literal(LEASE_SECONDS)}), deadline_at = now() + make_interval(secs => ${literal(SILENCE_SECONDS)}),
    holder_token_id = ${token}, claims = r.claims + 1
  FROM candidate WHERE r.id = candidate.id AND NOT EXISTS (SELECT 1 FROM again) AND ${token} IS NOT NULL
  RETURNING r.*
), taken AS (SELECT * FROM claimed UNION ALL SELECT * FROM again)
SELECT EXISTS (SELECT 1 FROM environments WHERE org_id = ${org} AND env_id = ${env}) AS env_exists, run.*
FROM (SELECT 1) one LEFT JOIN (
  SELECT c.id, c.env_id, c.requested_at, c.claims, c.lease_expires_at, c.deadline_at,
         w.id AS workload_id, w.name AS workload_name, v.id AS version_id, v.number AS version_number, v.compiled
  FROM taken c JOIN workloads w ON w.id = c.workload_id JOIN workload_versions v ON v.id = c.version_id
) run ON true`;
};

// One statement: whether the environment exists comes back with the claim (a row even when none is
// claimed).
interface Row {
  env_exists: boolean;
  id: string | null;
  env_id: string;
  requested_at: Date;
  claims: number;
  lease_expires_at: Date;
  deadline_at: Date;
  workload_id: string;
  workload_name: string;
  version_id: string;
  version_number: number;
  compiled: object;
}

/**
 * The claim of the run the admitted token takes: its statement, and how its rows read (the run; null
 * when none waits; "no_environment" when the environment is unknown, and nothing was claimed).
 * `claimId`, the engine's own id for this claim, makes a retry of it answer the same run.
 */
export function runClaim(orgId: string, envId: string, claimId?: string): Piggyback<ClaimedRun | null | "no_environment"> {
  const leaseId = claimId ?? crypto.randomUUID();
  const read = (rows: Record<string, unknown>[]) => {
    const row = rows[0] as unknown as Row;
    if (!row.env_exists) return "no_environment" as const;
    if (row.id === null) return null;
    return {
      id: row.id,
      envId: row.env_id,
      requestedAt: row.requested_at.toISOString(),
      workload: { id: row.workload_id, name: row.workload_name },
      version: { id: row.version_id, number: row.version_number, compiled: row.compiled },
      lease: { id: leaseId, attempt: row.claims, expiresAt: row.lease_expires_at.toISOString() },
      deadline: row.deadline_at.toISOString(),
    };
  };
  return { text: claimStatement(orgId, envId, leaseId), read };
}
