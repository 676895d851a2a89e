// The environment projection in the transaction that stores its batch (worker/events: a store step of
// every environment.* type): the rows of the environments the batch's events name locked, in one order
// for every transaction, the events applied by the pure rules (projection.ts), and the rows changed
// written in one statement. Stored and projected commit together, so an event stored is an event
// projected; a duplicate was projected with the batch that stored it.
import { sql } from "drizzle-orm";
import type { Tx } from "../../db/transaction";
import { confirmTeardowns } from "../commands";
import { project, type EnvironmentRow, type ProjectionEvent } from "./projection";
import type { EnvironmentPayload } from "./schemas";

/** An environment event this batch stored, at its position in the batch (worker/events' StoredEvent, as this step reads it). */
export interface StoredEnvironmentEvent {
  position: number;
  event: { type: string; envId?: string | undefined; sequence?: number | undefined; occurredAt: string; payload?: unknown };
}

interface StoredRow {
  env_id: string;
  repository: string;
  branch: string | null;
  pull_request: number | null;
  state: EnvironmentRow["state"];
  last_sequence: string | null;
  last_event_at: Date;
  started_at: Date | null;
  ttl_seconds: number | null;
  expires_at: Date | null;
  preview_urls: string[];
}

const fromStored = (row: StoredRow): EnvironmentRow => ({
  repository: row.repository,
  branch: row.branch,
  pullRequest: row.pull_request,
  state: row.state,
  lastSequence: row.last_sequence === null ? null : Number(row.last_sequence),
  lastEventAt: row.last_event_at.getTime(),
  startedAt: row.started_at?.toISOString() ?? null,
  ttlSeconds: row.ttl_seconds,
  expiresAt: row.expires_at?.toISOString() ?? null,
  previewUrls: row.preview_urls,
});

const toStored = (envId: string, row: EnvironmentRow, created: boolean) => ({
  env_id: envId,
  created,
  repository: row.repository,
  branch: row.branch,
  pull_request: row.pullRequest,
  state: row.state,
  last_sequence: row.lastSequence,
  last_event_at: new Date(row.lastEventAt).toISOString(),
  started_at: row.startedAt,
  ttl_seconds: row.ttlSeconds,
  expires_at: row.expiresAt,
  preview_urls: row.previewUrls,
});

/** The rows of `envIds` that exist, locked by this transaction in envId order. */
async function locked(tx: Tx, envIds: readonly string[]): Promise<Map<string, EnvironmentRow>> {
  const { rows } = await tx.execute<StoredRow>(sql`SELECT * FROM svc_lock_environments(${sql.param(envIds)}::text[])`);
  return new Map(rows.map((row) => [row.env_id, fromStored(row)]));
}

/**
 * Each environment's events applied to its row as `current` holds it (none: the projection may create
 * it), written by `svc_write_environments`, their notes put in `notes`: answers the environments whose
 * row another transaction created meanwhile (their events not applied).
 */
async function apply(
  tx: Tx,
  byEnvironment: ReadonlyMap<string, ProjectionEvent[]>,
  current: ReadonlyMap<string, EnvironmentRow>,
  notes: Map<number, string>,
): Promise<string[]> {
  const changed: ReturnType<typeof toStored>[] = [];
  for (const [envId, events] of byEnvironment) {
    const projected = project(current.get(envId) ?? null, events);
    for (const [ref, note] of projected.notes) notes.set(ref, note);
    if (projected.row && projected.notes.size < events.length) changed.push(toStored(envId, projected.row, !current.has(envId)));
  }
  if (changed.length === 0) return [];
  const { rows } = await tx.execute<{ taken: string }>(sql`SELECT taken FROM svc_write_environments(${JSON.stringify(changed)}::jsonb)`);
  return rows.map((row) => row.taken);
}

/**
 * Projects the stored environment events onto their environments' rows, in the storing transaction:
 * answers, by batch position, why an event changed nothing. The rows are locked by
 * `svc_lock_environments` and written by `svc_write_environments`
 * (db/migrations/0046_environment_creation_without_advisory_locks.sql), each planned once per backend.
 * An environment another batch created while this one applied its events (no row to lock then) is
 * locked once that batch committed and its events applied again, to the row as it made it.
 */
export async function projectEnvironments(tx: Tx, orgId: string, stored: readonly StoredEnvironmentEvent[]): Promise<Map<number, string>> {
  const notes = new Map<number, string>();
  const byEnvironment = new Map<string, ProjectionEvent[]>();
  for (const { position, event } of stored) {
    if (!event.envId) {
      notes.set(position, "The event names no envId, so it cannot project onto an environment.");
      continue;
    }
    const events = byEnvironment.get(event.envId) ?? byEnvironment.set(event.envId, []).get(event.envId)!;
    events.push({
      ref: position,
      type: event.type,
      sequence: event.sequence ?? null,
      at: Date.parse(event.occurredAt),
      payload: (event.payload ?? {}) as EnvironmentPayload,
    });
  }
  if (byEnvironment.size === 0) return notes;

  const envIds = [...byEnvironment.keys()].sort();
  const taken = await apply(tx, byEnvironment, await locked(tx, envIds), notes);
  if (taken.length > 0) {
    // Their events' notes were written against no row: they are written again against the row found.
    for (const envId of taken) for (const { ref } of byEnvironment.get(envId)!) notes.delete(ref);
    await apply(tx, new Map(taken.map((envId) => [envId, byEnvironment.get(envId)!])), await locked(tx, taken), notes);
  }
  // The engine's own destruction event acknowledges a teardown, whether or not it moved the row.
  for (const envId of envIds) {
    if (byEnvironment.get(envId)!.some((event) => event.type === "environment.torn_down")) await confirmTeardowns(tx, orgId, envId);
  }
  return notes;
}
