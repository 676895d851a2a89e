// Claiming: the oldest run of the environment that is waiting, or whose lease expired after missed
// heartbeats (the new claimer takes it over), moves to accepted with a fresh lease. SKIP LOCKED lets
// concurrent claimers each take a different run: exactly one engine gets each.
import { literal, type Piggyback, statement } from "../../db/pipeline";
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
 * The claim as one statement without parameters (its values literals), so the transaction sends it
 * with its COMMIT (db/pipeline.ts): `svc_claim_run` (db/migrations/0039_planned_once.sql, where its SQL
 * and its index order are described; a function, so that each backend plans it once), for the token
 * the transaction admitted (none, no claim). The lease id is the engine's `claimId` when it sent one:
 * a claim retried with the same id by the same token, while the run it took is still held under that
 * lease, answers that run again instead of taking a second one (its first answer may have been lost
 * with a connection that dropped after the COMMIT).
 */
const claimStatement = (orgId: string, envId: string, leaseId: string) =>
  statement`SELECT * FROM svc_claim_run(${literal(orgId)}::uuid, ${literal(envId)}, ${literal(leaseId)}::uuid, ${literal(LEASE_SECONDS)}, ${literal(SILENCE_SECONDS)})`;

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
