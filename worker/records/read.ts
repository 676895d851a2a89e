// What a person sees of the engine records: runs of an environment (paged), one run with its
// verdicts, artifacts and goldens, and network decisions of an environment (paged, filterable).
// Pages are ordered by each table's `seq`, newest first (indexes engine_runs_env, network_decisions_env);
// the cursor carries the last item's seq.
import { and, desc, eq, lt, sql } from "drizzle-orm";
import { goldens, networkDecisions, runArtifacts, runVerdicts } from "../../db/schema/records";
import type { Tx } from "../../db/transaction";
import type { RUN_OUTCOMES } from "./payloads";
import { decodeCursor, KeySeq, keyset, type Page, pageOf } from "../http/paging";

const iso = (date: Date | null) => date?.toISOString() ?? null;

interface RunRow {
  seq: string;
  run_id: string;
  env_id: string | null;
  name: string | null;
  runtime: string | null;
  runtime_registered: boolean;
  workload_run_id: string | null;
  started_at: Date | null;
  finished_at: Date | null;
  outcome: string | null;
  duration_ms: string | null;
  verdicts: Record<string, number> | null;
}

const RUN_COLUMNS = sql`
  r.seq, r.run_id, r.env_id, r.name, r.runtime, r.workload_run_id, r.started_at, r.finished_at, r.outcome, r.duration_ms,
  EXISTS (SELECT 1 FROM runtimes t WHERE t.org_id = r.org_id AND t.name = r.runtime AND t.removed_at IS NULL) AS runtime_registered,
  (SELECT jsonb_object_agg(verdict, n) FROM (SELECT verdict, count(*) AS n FROM run_verdicts v WHERE v.org_id = r.org_id AND v.run_id = r.run_id GROUP BY verdict) c) AS verdicts`;

function runView(row: RunRow) {
  const duration =
    row.duration_ms !== null
      ? Number(row.duration_ms)
      : row.started_at && row.finished_at
        ? Math.max(0, row.finished_at.getTime() - row.started_at.getTime())
        : null;
  return {
    runId: row.run_id,
    envId: row.env_id,
    name: row.name,
    // The name as the engine reported it; `registered` says whether a runtime of that name is registered now.
    runtime: row.runtime === null ? null : { name: row.runtime, registered: row.runtime_registered },
    workloadRunId: row.workload_run_id,
    state: row.finished_at !== null ? ("finished" as const) : ("running" as const),
    outcome: row.outcome,
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
    durationMs: duration,
    verdicts: { pass: 0, fail: 0, warn: 0, skip: 0, ...(row.verdicts ?? {}) },
  };
}

export type RunView = ReturnType<typeof runView>;

const SeqKey = [KeySeq] as const;
const page = <R extends { seq: string | number }, T>(rows: R[], limit: number, view: (row: R) => T) => pageOf(rows, limit, (row) => [Number(row.seq)], view);

/** Which runs a list shows: those still running, or those that ended with one outcome; null: all. */
export type RunsShown = "running" | (typeof RUN_OUTCOMES)[number] | null;

const shownOnly = (shown: RunsShown) => (shown === null ? sql`` : shown === "running" ? sql`AND r.outcome IS NULL` : sql`AND r.outcome = ${shown}`);

/** A page of an environment's runs, newest first, after `after`'s seq. */
export const runsPage = (orgId: string, envId: string, after: readonly [number] | null, limit: number, shown: RunsShown = null) =>
  sql`SELECT ${RUN_COLUMNS} FROM engine_runs r
     WHERE r.org_id = ${orgId} AND r.env_id = ${envId} ${shownOnly(shown)} AND ${keyset([sql`r.seq`], after, "desc")} ORDER BY r.seq DESC LIMIT ${limit}`;

export async function listRuns(
  tx: Tx,
  orgId: string,
  envId: string,
  cursor: string | undefined,
  limit: number,
  shown: RunsShown = null,
): Promise<Page<RunView>> {
  const { rows } = await tx.execute<RunRow>(runsPage(orgId, envId, decodeCursor(cursor, SeqKey), limit + 1, shown));
  return page(rows, limit, runView);
}

export async function findRun(tx: Tx, orgId: string, runId: string) {
  const { rows } = await tx.execute<RunRow>(sql`SELECT ${RUN_COLUMNS} FROM engine_runs r WHERE r.org_id = ${orgId} AND r.run_id = ${runId}`);
  if (!rows[0]) return null;
  const verdicts = await tx
    .select({ name: runVerdicts.name, verdict: runVerdicts.verdict, detail: runVerdicts.detail, recordedAt: runVerdicts.recordedAt })
    .from(runVerdicts)
    .where(and(eq(runVerdicts.orgId, orgId), eq(runVerdicts.runId, runId)))
    .orderBy(runVerdicts.name);
  const artifacts = await tx
    .select({
      name: runArtifacts.name,
      sizeBytes: runArtifacts.sizeBytes,
      digest: runArtifacts.digest,
      location: runArtifacts.location,
      contentType: runArtifacts.contentType,
      storedAt: runArtifacts.storedAt,
    })
    .from(runArtifacts)
    .where(and(eq(runArtifacts.orgId, orgId), eq(runArtifacts.runId, runId)))
    .orderBy(runArtifacts.name);
  const published = await tx
    .select({ name: goldens.name, version: goldens.version, digest: goldens.digest, location: goldens.location, publishedAt: goldens.publishedAt })
    .from(goldens)
    .where(and(eq(goldens.orgId, orgId), eq(goldens.runId, runId)))
    .orderBy(goldens.name, goldens.version);
  // What the run was refused on the network: beside a failed check, often why (the console's "Why it failed").
  const refused = await tx.execute<{ host: string; port: number; requests: number }>(sql`
    SELECT host, port, count(*)::int AS requests FROM network_decisions
    WHERE org_id = ${orgId} ${rows[0].env_id === null ? sql`` : sql`AND env_id = ${rows[0].env_id}`} AND run_id = ${runId} AND NOT allowed
    GROUP BY host, port ORDER BY requests DESC, host, port LIMIT ${DENIED_SHOWN}`);
  return {
    ...runView(rows[0]),
    verdictList: verdicts.map((v) => ({ name: v.name, verdict: v.verdict, detail: v.detail, recordedAt: v.recordedAt.toISOString() })),
    artifacts: artifacts.map((a) => ({
      name: a.name,
      sizeBytes: a.sizeBytes,
      digest: a.digest,
      location: a.location,
      contentType: a.contentType,
      storedAt: a.storedAt.toISOString(),
    })),
    goldens: published.map((g) => ({ name: g.name, version: g.version, digest: g.digest, location: g.location, publishedAt: g.publishedAt.toISOString() })),
    /** The hosts and ports denied to this run, most requests first (at most DENIED_SHOWN). */
    deniedConnections: refused.rows,
  };
}

/** How many of a run's denied destinations runs.get lists. */
const DENIED_SHOWN = 20;

/** A page of an environment's network decisions, newest first, after `after`'s seq. */
export const decisionsPage = (tx: Tx, orgId: string, envId: string, decision: "allowed" | "denied" | null, after: readonly [number] | null, limit: number) =>
  tx
    .select({
      seq: networkDecisions.seq,
      eventId: networkDecisions.eventId,
      occurredAt: networkDecisions.occurredAt,
      runId: networkDecisions.runId,
      host: networkDecisions.host,
      port: networkDecisions.port,
      allowed: networkDecisions.allowed,
      rule: networkDecisions.rule,
    })
    .from(networkDecisions)
    .where(
      and(
        eq(networkDecisions.orgId, orgId),
        eq(networkDecisions.envId, envId),
        decision === null ? undefined : eq(networkDecisions.allowed, decision === "allowed"),
        after === null ? undefined : lt(networkDecisions.seq, after[0]),
      ),
    )
    .orderBy(desc(networkDecisions.seq))
    .limit(limit);

export async function listDecisions(tx: Tx, orgId: string, envId: string, decision: "allowed" | "denied" | null, cursor: string | undefined, limit: number) {
  const rows = await decisionsPage(tx, orgId, envId, decision, decodeCursor(cursor, SeqKey), limit + 1);
  return page(rows, limit, (row) => ({
    eventId: row.eventId,
    at: row.occurredAt.toISOString(),
    runId: row.runId,
    host: row.host,
    port: row.port,
    decision: row.allowed ? ("allowed" as const) : ("denied" as const),
    // Null: no rule matched and the default decided.
    rule: row.rule,
  }));
}
