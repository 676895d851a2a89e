// The work of `bench:ingest`, shared with `bench:scale`: 500-event batches through POST /v1/events and
// a raw multi-row INSERT ... ON CONFLICT DO NOTHING of same-shaped rows into the same PostgreSQL from
// Node, in three mixes (see MIXES), rounds alternating the two so that a drift of the machine weighs
// on both alike.
import { type Connection, inTenant } from "../db/transaction";
import { post } from "./engine-http";
import { median } from "./figures";
import type { BenchWorker } from "./local-worker";
import { createOrganization } from "../worker/organizations/store";
import { issueToken } from "../worker/tokens/issue";

export const BATCH = 500;

export interface Row {
  id: string;
  type: string;
  envId: string;
  sequence: number;
  occurredAt: string;
  payload: Record<string, unknown>;
}

// "stored only": a type the service stores and projects nothing for (as run.finished was when issue 19
// measured "today's mix"); "run.finished": each one also projected onto a run record in the insert's
// transaction; "10% environment.*": the stored-only mix with every tenth event an environment.ready
// over 20 environments, so the environment projection is on the path.
export type Mix = "stored only" | "run.finished" | "10% environment.*";
export const MIXES: Mix[] = ["stored only", "run.finished", "10% environment.*"];
let environmentSequence = 0;

function event(mix: Mix, i: number, now: number): Row {
  const common = { id: crypto.randomUUID(), envId: `env-${i % 20}`, sequence: i, occurredAt: new Date(now - i).toISOString() };
  if (mix === "10% environment.*" && i % 10 === 0) {
    // A valid environment.ready: projected onto its environment in the storing transaction.
    // Spread over the 20 environments (a tenth of 0..499 modulo 20 would name two of them).
    const envId = `env-${(i / 10) % 20}`;
    return { ...common, envId, type: "environment.ready", sequence: ++environmentSequence, payload: { repository: "bench/shop", branch: `branch-${envId}` } };
  }
  if (mix === "run.finished") {
    // A valid run.finished (worker/records/payloads.ts): each one projects onto a run record too.
    return { ...common, type: "run.finished", payload: { runId: `run-${crypto.randomUUID()}`, outcome: "passed", durationMs: 1234 } };
  }
  return { ...common, type: "engine.progress", payload: { run: i, step: "load", durationMs: 1234 } };
}

export function batch(mix: Mix): Row[] {
  const now = Date.now();
  return Array.from({ length: BATCH }, (_, i) => event(mix, i, now));
}

/** Sends `work` with `concurrency` workers; returns events per second. */
export async function measure(concurrency: number, work: Row[][], send: (rows: Row[]) => Promise<void>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < work.length) await send(work[next++]!);
    }),
  );
  return (work.length * BATCH) / ((performance.now() - started) / 1000);
}

export interface Senders {
  /** Through the service, first sending. */
  firstSending: (rows: Row[]) => Promise<void>;
  /** The same batch again: every event a duplicate. */
  retry: (rows: Row[]) => Promise<void>;
  /** The baseline: the driver's own multi-row insert in the same tenant transaction. */
  viaRawInsert: (rows: Row[]) => Promise<void>;
  /** The floor of the same rows: the raw insert and, in its transaction, one minimal statement for the records the events write. */
  viaFloor: (rows: Row[]) => Promise<void>;
}

/**
 * The records a batch's events write beside themselves, as the one minimal multi-row statement a
 * store of them needs (`$1` the organization, its values from `$2`), or none. A run.finished sets
 * its run's end unless an earlier one stands (each run is named once in the benchmark's batches); an
 * environment.ready sets its environment's row from the latest event of that environment in the batch.
 */
function recordsOf(rows: Row[]): { text: string; params: unknown[] } | null {
  const params: unknown[] = [];
  const placeholders = (values: unknown[]) => `($1, ${values.map((value) => `$${params.push(value) + 1}`).join(", ")})`;
  const finished = rows.filter((row) => row.type === "run.finished");
  if (finished.length > 0) {
    const values = finished.map((row) => placeholders([row.payload.runId, row.envId, row.payload.outcome, row.payload.durationMs, row.occurredAt, row.id]));
    return {
      text: `INSERT INTO engine_runs AS r (org_id, run_id, env_id, outcome, duration_ms, finished_at, finished_event_id) VALUES ${values.join(", ")}
        ON CONFLICT (org_id, run_id) DO UPDATE SET outcome = EXCLUDED.outcome, duration_ms = EXCLUDED.duration_ms,
          finished_at = EXCLUDED.finished_at, finished_event_id = EXCLUDED.finished_event_id
        WHERE r.finished_at IS NULL OR EXCLUDED.finished_at < r.finished_at`,
      params,
    };
  }
  const latest = new Map<string, Row>();
  for (const row of rows) if (row.type === "environment.ready" && row.sequence > (latest.get(row.envId)?.sequence ?? -1)) latest.set(row.envId, row);
  if (latest.size === 0) return null;
  const values = [...latest.values()].map((row) => placeholders([row.envId, row.payload.repository, row.payload.branch, row.sequence, row.occurredAt]));
  return {
    text: `INSERT INTO environments AS e (org_id, env_id, repository, branch, last_sequence, last_event_at, state)
      SELECT v.org_id::uuid, v.env_id, v.repository, v.branch, v.last_sequence::bigint, v.last_event_at::timestamptz, 'ready'
      FROM (VALUES ${values.join(", ")}) AS v (org_id, env_id, repository, branch, last_sequence, last_event_at)
      ON CONFLICT (org_id, env_id) DO UPDATE SET repository = EXCLUDED.repository, branch = EXCLUDED.branch, state = EXCLUDED.state,
        last_sequence = EXCLUDED.last_sequence, last_event_at = EXCLUDED.last_event_at
      WHERE e.last_sequence IS NULL OR e.last_sequence < EXCLUDED.last_sequence`,
    params,
  };
}

/** Two organizations (`bench-service<suffix>`, `bench-raw<suffix>`), an engine token, warmed paths. */
export async function ingestSenders({ pool, base }: BenchWorker, suffix = ""): Promise<Senders> {
  const service = await createOrganization(pool.connect, { slug: `bench-service${suffix}`, actorLabel: "bench" });
  const raw = await createOrganization(pool.connect, { slug: `bench-raw${suffix}`, actorLabel: "bench" });
  const { token, id: tokenId } = await inTenant(pool.connect, service.id, (tx) => issueToken(tx, { orgId: service.id, kind: "engine", name: "bench" }));

  const viaService = async (rows: Row[]) => {
    const { status, text } = await post(`${base}/v1/events`, token, JSON.stringify({ events: rows }));
    if (status !== 202) throw new Error(`POST /v1/events answered ${status}: ${text}`);
    const body = JSON.parse(text) as { accepted: number; duplicates: number; rejected: number };
    if (body.rejected) throw new Error(`POST /v1/events rejected ${body.rejected} events`);
    return body;
  };
  // The baseline is the driver's own multi-row insert, with no query builder in front of it: the
  // connection's raw client, inside the same tenant transaction the service's insert runs in; with
  // `records`, the minimal statement for the records the events write follows it in that transaction.
  const rawInsert = async (rows: Row[], records: boolean) => {
    const params: unknown[] = [raw.id, tokenId];
    const values = rows.map((row) => {
      params.push(row.id, row.occurredAt, row.type, row.envId, row.sequence, JSON.stringify(row.payload));
      const n = params.length;
      return `($1, $${n - 5}, $${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, $${n}, $2)`;
    });
    const written = records ? recordsOf(rows) : null;
    let connection: Connection | null = null;
    const connect = async () => (connection = await pool.connect());
    await inTenant(connect, raw.id, async () => {
      await connection!.raw.query(
        `INSERT INTO events (org_id, id, occurred_at, type, env_id, sequence, payload, token_id) VALUES ${values.join(", ")} ON CONFLICT DO NOTHING`,
        params,
      );
      if (written) await connection!.raw.query(written.text, [raw.id, ...written.params]);
    });
  };
  const senders: Senders = {
    firstSending: async (rows) => {
      await viaService(rows);
    },
    retry: async (rows) => {
      const body = await viaService(rows);
      if (body.duplicates !== rows.length) throw new Error(`a retry found ${body.duplicates} of ${rows.length} events already stored`);
    },
    // The same rows' shape, one multi-row statement per batch, as the application role in a tenant transaction.
    viaRawInsert: (rows) => rawInsert(rows, false),
    viaFloor: (rows) => rawInsert(rows, true),
  };
  await senders.firstSending(batch("run.finished")); // warm the isolate and the pools
  await senders.viaFloor(batch("run.finished"));
  return senders;
}

export interface IngestFigures {
  service: number;
  again: number;
  /** The raw insert of the events alone. */
  direct: number;
  /** The floor of the same rows: the raw insert and the records the events write (the raw insert's figure for a mix that writes none). */
  floor: number;
}

/** Medians of `rounds` alternating rounds of `batches` batches: service, retry, raw insert and floor, in ev/s. */
export async function ingestRounds(senders: Senders, mix: Mix, concurrency: number, rounds: number, batches: number): Promise<IngestFigures> {
  const measured: IngestFigures[] = [];
  const writesRecords = recordsOf(batch(mix)) !== null;
  for (let round = 0; round < rounds; round++) {
    const work = Array.from({ length: batches }, () => batch(mix));
    const service = await measure(concurrency, work, senders.firstSending);
    const again = await measure(concurrency, work, senders.retry);
    const fresh = () => Array.from({ length: batches }, () => batch(mix));
    const direct = await measure(concurrency, fresh(), senders.viaRawInsert);
    const floor = writesRecords ? await measure(concurrency, fresh(), senders.viaFloor) : direct;
    measured.push({ service, again, direct, floor });
  }
  const middle = (key: keyof IngestFigures) => median(measured.map((r) => r[key]));
  return { service: middle("service"), again: middle("again"), direct: middle("direct"), floor: middle("floor") };
}
