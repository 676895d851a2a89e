// Projecting record events onto the engine records, in the transaction that stored them: each type's
// store step (worker/events/event-type.ts) is one set-based statement for the batch (never one per event).
// Each statement is an idempotent upsert whose winner does not depend on arrival order:
//   run.started       the earliest start of a run stands (a late one never reopens a finished run)
//   run.finished      the earliest end of a run stands
//   verdict.recorded  per run and check, the latest verdict stands (occurredAt, then event id)
//   artifact.stored   per run and name, the latest report stands
//   golden.published  the first publication of a name and version stands
//   network.decision  each event is one decision
//   workload.started  the earliest start of a workload run stands; no run state changes
// Only events this batch stored are projected: a duplicate was projected with the batch that stored it.
// Every accepted record event carries a note (the spec counts it as unprojected: it changes no
// environment row): what it recorded, or why it changed no record at all.
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import { workloadRuns } from "../../db/schema/workloads";
import { positionsOf, touchedPositions } from "../../db/positions";
import type { IngestedEvent } from "../events";
import type { StoreStep, StoredEvent } from "../events";

type P = Record<string, any>;
const payloadOf = (event: IngestedEvent) => (event.payload ?? {}) as P;

const iso = (event: IngestedEvent) => new Date(Date.parse(event.occurredAt)).toISOString();

/** A statement's input: one array per column, each with a value per event, the positions last. */
type Columns = unknown[][];
/** One column of the input as a single array parameter (never expanded into a list). */
const array = (values: unknown[] | undefined) => sql.param(values);

const RUN_STARTED = (orgId: string, [runIds, envIds, names, runtimes, workloadRunIds, ats, eventIds, ords]: Columns) => sql`
WITH input AS (
  SELECT * FROM unnest(${array(runIds)}::text[], ${array(envIds)}::text[], ${array(names)}::text[], ${array(runtimes)}::text[], ${array(workloadRunIds)}::uuid[], ${array(ats)}::timestamptz[], ${array(eventIds)}::text[], ${array(ords)}::int[])
    AS t(run_id, env_id, name, runtime, workload_run_id, at, event_id, ord)
), firsts AS (
  SELECT DISTINCT ON (run_id) * FROM input ORDER BY run_id, at, event_id
), upserted AS (
  INSERT INTO engine_runs AS r (org_id, run_id, env_id, name, runtime, workload_run_id, started_at, started_event_id)
  SELECT ${orgId}, run_id, env_id, name, runtime, workload_run_id, at, event_id FROM firsts
  ON CONFLICT (org_id, run_id) DO UPDATE SET
    started_at = EXCLUDED.started_at, started_event_id = EXCLUDED.started_event_id,
    env_id = COALESCE(r.env_id, EXCLUDED.env_id), name = COALESCE(EXCLUDED.name, r.name),
    runtime = COALESCE(EXCLUDED.runtime, r.runtime), workload_run_id = COALESCE(EXCLUDED.workload_run_id, r.workload_run_id),
    updated_at = now()
  WHERE r.started_at IS NULL OR (EXCLUDED.started_at, EXCLUDED.started_event_id) < (r.started_at, r.started_event_id)
  RETURNING run_id
)
SELECT ${positionsOf(sql`f.ord`)} FROM firsts f JOIN upserted USING (run_id)`;

const RUN_FINISHED = (orgId: string, [runIds, envIds, runtimes, outcomes, durations, ats, eventIds, ords]: Columns) => sql`
WITH input AS (
  SELECT * FROM unnest(${array(runIds)}::text[], ${array(envIds)}::text[], ${array(runtimes)}::text[], ${array(outcomes)}::text[], ${array(durations)}::bigint[], ${array(ats)}::timestamptz[], ${array(eventIds)}::text[], ${array(ords)}::int[])
    AS t(run_id, env_id, runtime, outcome, duration_ms, at, event_id, ord)
), firsts AS (
  SELECT DISTINCT ON (run_id) * FROM input ORDER BY run_id, at, event_id
), upserted AS (
  INSERT INTO engine_runs AS r (org_id, run_id, env_id, runtime, outcome, duration_ms, finished_at, finished_event_id)
  SELECT ${orgId}, run_id, env_id, runtime, outcome, duration_ms, at, event_id FROM firsts
  ON CONFLICT (org_id, run_id) DO UPDATE SET
    finished_at = EXCLUDED.finished_at, finished_event_id = EXCLUDED.finished_event_id,
    outcome = EXCLUDED.outcome, duration_ms = EXCLUDED.duration_ms,
    env_id = COALESCE(r.env_id, EXCLUDED.env_id), runtime = COALESCE(r.runtime, EXCLUDED.runtime), updated_at = now()
  WHERE r.finished_at IS NULL OR (EXCLUDED.finished_at, EXCLUDED.finished_event_id) < (r.finished_at, r.finished_event_id)
  RETURNING run_id
)
SELECT ${positionsOf(sql`f.ord`)} FROM firsts f JOIN upserted USING (run_id)`;

const VERDICTS = (orgId: string, [runIds, names, verdicts, details, ats, eventIds, ords]: Columns) => sql`
WITH input AS (
  SELECT * FROM unnest(${array(runIds)}::text[], ${array(names)}::text[], ${array(verdicts)}::text[], ${array(details)}::text[], ${array(ats)}::timestamptz[], ${array(eventIds)}::text[], ${array(ords)}::int[])
    AS t(run_id, name, verdict, detail, at, event_id, ord)
), lasts AS (
  SELECT DISTINCT ON (run_id, name) * FROM input ORDER BY run_id, name, at DESC, event_id DESC
), upserted AS (
  INSERT INTO run_verdicts AS v (org_id, run_id, name, verdict, detail, recorded_at, event_id)
  SELECT ${orgId}, run_id, name, verdict, detail, at, event_id FROM lasts
  ON CONFLICT (org_id, run_id, name) DO UPDATE SET
    verdict = EXCLUDED.verdict, detail = EXCLUDED.detail, recorded_at = EXCLUDED.recorded_at, event_id = EXCLUDED.event_id
  WHERE (EXCLUDED.recorded_at, EXCLUDED.event_id) > (v.recorded_at, v.event_id)
  RETURNING run_id, name
)
SELECT ${positionsOf(sql`l.ord`)} FROM lasts l JOIN upserted USING (run_id, name)`;

const ARTIFACTS = (orgId: string, [runIds, names, sizes, digests, locations, contentTypes, ats, eventIds, ords]: Columns) => sql`
WITH input AS (
  SELECT * FROM unnest(${array(runIds)}::text[], ${array(names)}::text[], ${array(sizes)}::bigint[], ${array(digests)}::text[], ${array(locations)}::text[], ${array(contentTypes)}::text[], ${array(ats)}::timestamptz[], ${array(eventIds)}::text[], ${array(ords)}::int[])
    AS t(run_id, name, size_bytes, digest, location, content_type, at, event_id, ord)
), lasts AS (
  SELECT DISTINCT ON (run_id, name) * FROM input ORDER BY run_id, name, at DESC, event_id DESC
), upserted AS (
  INSERT INTO run_artifacts AS a (org_id, run_id, name, size_bytes, digest, location, content_type, stored_at, event_id)
  SELECT ${orgId}, run_id, name, size_bytes, digest, location, content_type, at, event_id FROM lasts
  ON CONFLICT (org_id, run_id, name) DO UPDATE SET
    size_bytes = EXCLUDED.size_bytes, digest = EXCLUDED.digest, location = EXCLUDED.location,
    content_type = EXCLUDED.content_type, stored_at = EXCLUDED.stored_at, event_id = EXCLUDED.event_id
  WHERE (EXCLUDED.stored_at, EXCLUDED.event_id) > (a.stored_at, a.event_id)
  RETURNING run_id, name
)
SELECT ${positionsOf(sql`l.ord`)} FROM lasts l JOIN upserted USING (run_id, name)`;

const GOLDENS = (orgId: string, [names, versions, digests, locations, runIds, envIds, ats, eventIds, ords]: Columns) => sql`
WITH input AS (
  SELECT * FROM unnest(${array(names)}::text[], ${array(versions)}::text[], ${array(digests)}::text[], ${array(locations)}::text[], ${array(runIds)}::text[], ${array(envIds)}::text[], ${array(ats)}::timestamptz[], ${array(eventIds)}::text[], ${array(ords)}::int[])
    AS t(name, version, digest, location, run_id, env_id, at, event_id, ord)
), firsts AS (
  SELECT DISTINCT ON (name, version) * FROM input ORDER BY name, version, at, event_id
), inserted AS (
  INSERT INTO goldens (org_id, name, version, digest, location, run_id, env_id, published_at, event_id)
  SELECT ${orgId}, name, version, digest, location, run_id, env_id, at, event_id FROM firsts
  ON CONFLICT (org_id, name, version) DO NOTHING
  RETURNING name, version
)
SELECT ${positionsOf(sql`f.ord`)} FROM firsts f JOIN inserted USING (name, version)`;

const DECISIONS = (orgId: string, [eventIds, ats, envIds, runIds, hosts, ports, alloweds, rules, ords]: Columns) => sql`
WITH input AS (
  SELECT * FROM unnest(${array(eventIds)}::text[], ${array(ats)}::timestamptz[], ${array(envIds)}::text[], ${array(runIds)}::text[], ${array(hosts)}::text[], ${array(ports)}::int[], ${array(alloweds)}::boolean[], ${array(rules)}::text[], ${array(ords)}::int[])
    AS t(event_id, occurred_at, env_id, run_id, host, port, allowed, rule, ord)
), inserted AS (
  INSERT INTO network_decisions (org_id, event_id, occurred_at, env_id, run_id, host, port, allowed, rule)
  SELECT ${orgId}, event_id, occurred_at, env_id, run_id, host, port, allowed, rule FROM input ORDER BY ord
  ON CONFLICT DO NOTHING
  RETURNING event_id, occurred_at
)
SELECT ${positionsOf(sql`i.ord`)} FROM input i JOIN inserted USING (event_id, occurred_at)`;

const WORKLOAD_STARTED = (orgId: string, [runIds, ats, ords]: Columns) => sql`
WITH input AS (
  SELECT * FROM unnest(${array(runIds)}::uuid[], ${array(ats)}::timestamptz[], ${array(ords)}::int[]) AS t(run_id, at, ord)
), firsts AS (
  SELECT DISTINCT ON (run_id) * FROM input ORDER BY run_id, at, ord
), updated AS (
  UPDATE workload_runs w SET started_at = f.at FROM firsts f
  WHERE w.org_id = ${orgId} AND w.id = f.run_id AND (w.started_at IS NULL OR f.at < w.started_at)
  RETURNING w.id
)
SELECT ${positionsOf(sql`f.ord`)} FROM firsts f JOIN updated u ON u.id = f.run_id`;

const RUNTIMES_SEEN = (orgId: string, [names, ats]: Columns) => sql`
UPDATE runtimes r SET last_seen_at = s.at
FROM (SELECT name, max(at) AS at FROM unnest(${array(names)}::text[], ${array(ats)}::timestamptz[]) AS t(name, at) GROUP BY name) s
WHERE r.org_id = ${orgId} AND r.removed_at IS NULL AND r.name = s.name AND (r.last_seen_at IS NULL OR r.last_seen_at < s.at)`;

const NO_ENVIRONMENT = "record events change no environment row";

/** Runs `statement` over the events; notes what each applied event recorded, and why the others changed nothing. */
const upsert =
  (
    statement: (orgId: string, columns: Columns) => SQL,
    columns: (event: IngestedEvent, p: P) => unknown[],
    did: (p: P) => string,
    why: (p: P) => string,
  ): StoreStep =>
  async (tx, orgId, events) => {
    const items = events.map(({ position, event }) => ({ position, event, p: payloadOf(event) }));
    const params: unknown[][] = columns(items[0]!.event, items[0]!.p).map(() => []);
    for (const { event, p } of items) columns(event, p).forEach((value, i) => params[i]!.push(value ?? null));
    const applied = await touchedPositions(tx, statement(orgId, [...params, items.map((item) => item.position)]));
    return new Map(items.map(({ position, p }) => [position, applied.has(position) ? `${did(p)}; ${NO_ENVIRONMENT}.` : why(p)]));
  };

export const recordRunStart = upsert(
  RUN_STARTED,
  (event, p) => [p.runId, event.envId, p.name, p.runtime, p.workloadRunId, iso(event), event.id],
  (p) => `Recorded the start of run ${p.runId}`,
  (p) => `Run ${p.runId} already has an earlier start; a run's first run.started stands, and a finished run is never reopened.`,
);

export const recordRunEnd = upsert(
  RUN_FINISHED,
  (event, p) => [p.runId, event.envId, p.runtime, p.outcome, p.durationMs, iso(event), event.id],
  (p) => `Recorded run ${p.runId} as ${p.outcome}`,
  (p) => `Run ${p.runId} already finished earlier; a run's first run.finished decides its outcome.`,
);

export const recordVerdict = upsert(
  VERDICTS,
  (event, p) => [p.runId, p.name, p.verdict, p.detail, iso(event), event.id],
  (p) => `Recorded the verdict ${p.verdict} on ${p.name} of run ${p.runId}`,
  (p) => `A later verdict on ${p.name} of run ${p.runId} is already recorded; the latest stands.`,
);

export const recordArtifact = upsert(
  ARTIFACTS,
  (event, p) => [p.runId, p.name, p.sizeBytes, p.digest, p.location, p.contentType, iso(event), event.id],
  (p) => `Recorded artifact ${p.name} of run ${p.runId}`,
  (p) => `A later report of artifact ${p.name} of run ${p.runId} is already recorded; the latest stands.`,
);

export const recordGolden = upsert(
  GOLDENS,
  (event, p) => [p.name, p.version, p.digest, p.location, p.runId, event.envId, iso(event), event.id],
  (p) => `Recorded golden ${p.name} version ${p.version}`,
  (p) => `Golden ${p.name} version ${p.version} is already published; a published version never changes.`,
);

export const recordNetworkDecision = upsert(
  DECISIONS,
  (event, p) => [event.id, iso(event), event.envId, p.runId, p.host, p.port, p.decision === "allowed", p.rule],
  (p) => `Recorded the egress decision: ${p.host}:${p.port} ${p.decision}`,
  () => "This decision is already recorded.",
);

export const recordWorkloadStart: StoreStep = async (tx, orgId, events) => {
  const runId = ({ event }: StoredEvent) => payloadOf(event).runId as string;
  const applied = await touchedPositions(
    tx,
    WORKLOAD_STARTED(orgId, [events.map(runId), events.map(({ event }) => iso(event)), events.map((item) => item.position)]),
  );
  const notes = new Map<number, string>();
  for (const item of events) if (applied.has(item.position)) notes.set(item.position, `Recorded the start of workload run ${runId(item)}; ${NO_ENVIRONMENT}.`);
  const missed = events.filter((item) => !applied.has(item.position));
  if (missed.length === 0) return notes;
  const rows = await tx
    .select({ id: workloadRuns.id })
    .from(workloadRuns)
    .where(and(eq(workloadRuns.orgId, orgId), inArray(workloadRuns.id, missed.map(runId))));
  const known = new Set(rows.map((row) => row.id));
  for (const item of missed) {
    notes.set(
      item.position,
      known.has(runId(item))
        ? `Workload run ${runId(item)} already has an earlier start recorded; the first workload.started stands.`
        : `No workload run ${runId(item)} exists in this organization; the event is stored and changes nothing.`,
    );
  }
  return notes;
};

/** Every record event naming a runtime moves that registered runtime's last seen time forward (one statement for the batch). */
export const recordRuntimesSeen: StoreStep = async (tx, orgId, events) => {
  const seen = events.flatMap(({ event }) => {
    const { runtime } = payloadOf(event);
    return typeof runtime === "string" ? [{ name: runtime, at: iso(event) }] : [];
  });
  if (seen.length > 0) await tx.execute(RUNTIMES_SEEN(orgId, [seen.map((s) => s.name), seen.map((s) => s.at)]));
  return new Map();
};
