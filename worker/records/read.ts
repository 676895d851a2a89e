// What a person sees of the engine records: runs of an environment (paged), one run with its
// verdicts, artifacts and goldens, and network decisions of an environment (paged, filterable).
// Pages are ordered by each table's `seq`, newest first; `cursor` is the last item's seq.
import type { Tx } from "../../db/transaction";

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

const RUN_COLUMNS = `
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

export interface Page<T> {
  items: T[];
  /** Pass as `cursor` for the next page; null when this is the last. */
  nextCursor: number | null;
}

function page<R extends { seq: string }, T>(rows: R[], limit: number, view: (row: R) => T): Page<T> {
  const items = rows.slice(0, limit);
  return { items: items.map(view), nextCursor: rows.length > limit ? Number(items.at(-1)!.seq) : null };
}

export async function listRuns(tx: Tx, orgId: string, envId: string, cursor: number | null, limit: number): Promise<Page<RunView>> {
  const { rows } = await tx.sql.query<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM engine_runs r
     WHERE r.org_id = $1 AND r.env_id = $2 AND ($3::bigint IS NULL OR r.seq < $3) ORDER BY r.seq DESC LIMIT $4`,
    [orgId, envId, cursor, limit + 1],
  );
  return page(rows, limit, runView);
}

export async function findRun(tx: Tx, orgId: string, runId: string) {
  const { rows } = await tx.sql.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM engine_runs r WHERE r.org_id = $1 AND r.run_id = $2`, [orgId, runId]);
  if (!rows[0]) return null;
  const [verdicts, artifacts, goldens] = [
    await tx.sql.query<{ name: string; verdict: string; detail: string | null; recorded_at: Date }>(
      "SELECT name, verdict, detail, recorded_at FROM run_verdicts WHERE org_id = $1 AND run_id = $2 ORDER BY name",
      [orgId, runId],
    ),
    await tx.sql.query<{ name: string; size_bytes: string; digest: string; location: string; content_type: string | null; stored_at: Date }>(
      "SELECT name, size_bytes, digest, location, content_type, stored_at FROM run_artifacts WHERE org_id = $1 AND run_id = $2 ORDER BY name",
      [orgId, runId],
    ),
    await tx.sql.query<{ name: string; version: string; digest: string; location: string | null; published_at: Date }>(
      "SELECT name, version, digest, location, published_at FROM goldens WHERE org_id = $1 AND run_id = $2 ORDER BY name, version",
      [orgId, runId],
    ),
  ];
  return {
    ...runView(rows[0]),
    verdictList: verdicts.rows.map((v) => ({ name: v.name, verdict: v.verdict, detail: v.detail, recordedAt: v.recorded_at.toISOString() })),
    artifacts: artifacts.rows.map((a) => ({
      name: a.name,
      sizeBytes: Number(a.size_bytes),
      digest: a.digest,
      location: a.location,
      contentType: a.content_type,
      storedAt: a.stored_at.toISOString(),
    })),
    goldens: goldens.rows.map((g) => ({ name: g.name, version: g.version, digest: g.digest, location: g.location, publishedAt: g.published_at.toISOString() })),
  };
}

interface DecisionRow {
  seq: string;
  event_id: string;
  occurred_at: Date;
  run_id: string | null;
  host: string;
  port: number;
  allowed: boolean;
  rule: string | null;
}

export async function listDecisions(tx: Tx, orgId: string, envId: string, decision: "allowed" | "denied" | null, cursor: number | null, limit: number) {
  const { rows } = await tx.sql.query<DecisionRow>(
    `SELECT seq, event_id, occurred_at, run_id, host, port, allowed, rule FROM network_decisions
     WHERE org_id = $1 AND env_id = $2 AND ($3::boolean IS NULL OR allowed = $3) AND ($4::bigint IS NULL OR seq < $4)
     ORDER BY seq DESC LIMIT $5`,
    [orgId, envId, decision === null ? null : decision === "allowed", cursor, limit + 1],
  );
  return page(rows, limit, (row) => ({
    eventId: row.event_id,
    at: row.occurred_at.toISOString(),
    runId: row.run_id,
    host: row.host,
    port: row.port,
    decision: row.allowed ? ("allowed" as const) : ("denied" as const),
    // Null: no rule matched and the default decided.
    rule: row.rule,
  }));
}
