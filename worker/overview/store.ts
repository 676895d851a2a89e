// What the console's first pages read: the few rows each needs, bounded, in the transaction the
// procedure opened (acting as the organization, so row-level security holds them to it).
import { sql } from "drizzle-orm";
import type { EnvironmentState, WorkloadRunState } from "../../db/enums";
import type { Tx } from "../../db/transaction";

/** Rows each list shows at most; the page links to the full list. */
export const FEW = 5;
/** An environment expiring within this many hours is "expiring soon". */
export const EXPIRING_WITHIN_HOURS = 24;

const iso = (date: Date | string | null) => (date === null ? null : new Date(date).toISOString());

/** The organization's live App installations, each with a few of its repositories and how many it covers. */
export async function installationsWithRepositories(tx: Tx, orgId: string) {
  const { rows } = await tx.execute<{ account: string; suspended: boolean; repositories: string[] | null; repository_count: number }>(sql`
    SELECT i.account_login AS account, i.suspended_at IS NOT NULL AS suspended,
           (SELECT array_agg(full_name) FROM (
              SELECT r.full_name FROM installation_repositories r WHERE r.org_id = ${orgId} AND r.installation_id = i.id ORDER BY r.full_name LIMIT ${FEW}
            ) few) AS repositories,
           (SELECT count(*)::int FROM installation_repositories r WHERE r.org_id = ${orgId} AND r.installation_id = i.id) AS repository_count
    FROM installations i
    WHERE i.org_id = ${orgId} AND i.deleted_at IS NULL
    ORDER BY i.suspended_at IS NULL DESC, i.created_at DESC
    LIMIT ${FEW}`);
  return rows.map((row) => ({ account: row.account, suspended: row.suspended, repositories: row.repositories ?? [], repositoryCount: row.repository_count }));
}

/** Live repository claims, newest first: whether each is proven and when a workflow last exchanged through it. */
export async function liveClaims(tx: Tx, orgId: string) {
  const { rows } = await tx.execute<{ repository: string; proven: boolean; last_used_at: Date | null }>(sql`
    SELECT repository, proof IS NOT NULL AS proven, last_used_at FROM repository_claims
    WHERE org_id = ${orgId} AND revoked_at IS NULL ORDER BY created_at DESC LIMIT ${FEW}`);
  return rows.map((row) => ({ repository: row.repository, proven: row.proven, lastUsedAt: iso(row.last_used_at) }));
}

/** The environment an engine reported last, or null when none has. */
export async function lastReported(tx: Tx, orgId: string) {
  const { rows } = await tx.execute<{ env_id: string; state: EnvironmentState; repository: string; last_event_at: Date }>(sql`
    SELECT env_id, state, repository, last_event_at FROM environments WHERE org_id = ${orgId} ORDER BY last_event_at DESC LIMIT 1`);
  const row = rows[0];
  return row ? { envId: row.env_id, state: row.state, repository: row.repository, lastEventAt: iso(row.last_event_at)! } : null;
}

/** Environments counted by state, the few failed ones most recently heard from, and the few live ones expiring soonest within the window. */
export async function environmentsAtAGlance(tx: Tx, orgId: string) {
  const counts = await tx.execute<{ state: EnvironmentState; count: number }>(sql`
    SELECT state, count(*)::int AS count FROM environments WHERE org_id = ${orgId} GROUP BY state ORDER BY state`);
  const failed = await tx.execute<{ env_id: string; repository: string; branch: string | null; last_event_at: Date }>(sql`
    SELECT env_id, repository, branch, last_event_at FROM environments
    WHERE org_id = ${orgId} AND state = 'failed' ORDER BY last_event_at DESC LIMIT ${FEW}`);
  const expiring = await tx.execute<{ env_id: string; state: EnvironmentState; repository: string; expires_at: Date }>(sql`
    SELECT env_id, state, repository, expires_at FROM environments
    WHERE org_id = ${orgId} AND state <> 'torn_down' AND expires_at >= now() AND expires_at < now() + make_interval(hours => ${EXPIRING_WITHIN_HOURS})
    ORDER BY expires_at LIMIT ${FEW}`);
  return {
    byState: counts.rows,
    failed: failed.rows.map((row) => ({ envId: row.env_id, repository: row.repository, branch: row.branch, lastEventAt: iso(row.last_event_at)! })),
    expiringSoon: expiring.rows.map((row) => ({ envId: row.env_id, state: row.state, repository: row.repository, expiresAt: iso(row.expires_at)! })),
  };
}

/**
 * The engine runs that failed or errored most recently (by when they failed), each saying whether it
 * is still its environment's latest finished run (no run finished there since: it is failing now), and
 * the latest failing verdicts; neither on an environment since torn down, which no longer needs anyone.
 */
export async function latestFailures(tx: Tx, orgId: string) {
  const runs = await tx.execute<{ run_id: string; env_id: string | null; name: string | null; outcome: string; finished_at: Date | null; latest: boolean }>(sql`
    SELECT r.run_id, r.env_id, r.name, r.outcome, r.finished_at,
           NOT EXISTS (SELECT 1 FROM engine_runs later WHERE later.org_id = r.org_id AND later.env_id = r.env_id AND later.finished_at > r.finished_at) AS latest
    FROM engine_runs r
    LEFT JOIN environments e ON e.org_id = r.org_id AND e.env_id = r.env_id
    WHERE r.org_id = ${orgId} AND r.outcome IN ('failed', 'errored') AND e.state IS DISTINCT FROM 'torn_down'
    ORDER BY r.finished_at DESC LIMIT ${FEW}`);
  const verdicts = await tx.execute<{ run_id: string; env_id: string | null; name: string; detail: string | null; recorded_at: Date }>(sql`
    SELECT v.run_id, r.env_id, v.name, v.detail, v.recorded_at FROM run_verdicts v
    LEFT JOIN engine_runs r ON r.org_id = v.org_id AND r.run_id = v.run_id
    LEFT JOIN environments e ON e.org_id = r.org_id AND e.env_id = r.env_id
    WHERE v.org_id = ${orgId} AND v.verdict = 'fail' AND e.state IS DISTINCT FROM 'torn_down' ORDER BY v.recorded_at DESC LIMIT ${FEW}`);
  return {
    runs: runs.rows.map((row) => ({
      runId: row.run_id,
      envId: row.env_id,
      name: row.name,
      outcome: row.outcome,
      finishedAt: iso(row.finished_at),
      /** No run finished on its environment since: its environment is failing now. */
      latest: row.latest,
    })),
    verdicts: verdicts.rows.map((row) => ({ runId: row.run_id, envId: row.env_id, name: row.name, detail: row.detail, recordedAt: iso(row.recorded_at)! })),
  };
}

/**
 * Workload runs waiting for an engine (requested), held by one (accepted, its lease live), or whose
 * engine went quiet (accepted, its lease lapsed: the next claim takes it over): counts and the oldest few.
 */
export async function openWorkloadRuns(tx: Tx, orgId: string) {
  const counts = await tx.execute<{ waiting: number; held: number; lapsed: number }>(sql`
    SELECT count(*) FILTER (WHERE state = 'requested')::int AS waiting,
           count(*) FILTER (WHERE state = 'accepted' AND lease_expires_at > now())::int AS held,
           count(*) FILTER (WHERE state = 'accepted' AND lease_expires_at <= now())::int AS lapsed
    FROM workload_runs WHERE org_id = ${orgId} AND state IN ('requested', 'accepted')`);
  const oldest = await tx.execute<{
    id: string;
    env_id: string;
    workload: string;
    state: WorkloadRunState;
    held: boolean;
    requested_at: Date;
    deadline_at: Date;
  }>(sql`
    SELECT r.id, r.env_id, w.name AS workload, r.state, r.state = 'accepted' AND r.lease_expires_at > now() AS held, r.requested_at, r.deadline_at
    FROM workload_runs r JOIN workloads w ON w.id = r.workload_id
    WHERE r.org_id = ${orgId} AND r.state IN ('requested', 'accepted') ORDER BY r.requested_at LIMIT ${FEW}`);
  return {
    waiting: counts.rows[0]?.waiting ?? 0,
    held: counts.rows[0]?.held ?? 0,
    lapsed: counts.rows[0]?.lapsed ?? 0,
    oldest: oldest.rows.map((row) => ({
      id: row.id,
      envId: row.env_id,
      workload: row.workload,
      state: row.state,
      /** Accepted with a live lease; an accepted run whose lease lapsed is not held by anyone. */
      held: row.held,
      requestedAt: iso(row.requested_at)!,
      deadlineAt: iso(row.deadline_at)!,
    })),
  };
}

/** The plan, whether the organization is suspended, and a deletion under way (not called off). */
export async function planAndDeletion(tx: Tx, orgId: string) {
  const { rows } = await tx.execute<{ plan: string; suspended: boolean; requested_at: Date | null; step: string | null; wait_until: Date | null }>(sql`
    SELECT o.plan, o.suspended_at IS NOT NULL AS suspended, d.requested_at, d.step, d.wait_until
    FROM organizations o LEFT JOIN deletions d ON d.org_id = o.id AND d.called_off_at IS NULL
    WHERE o.id = ${orgId}`);
  const row = rows[0]!;
  return {
    plan: row.plan,
    suspended: row.suspended,
    deletion: row.requested_at ? { requestedAt: iso(row.requested_at)!, nextStep: row.step!, waitUntil: iso(row.wait_until) } : null,
  };
}
