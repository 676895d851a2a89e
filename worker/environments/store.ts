// Reading and writing one environment row inside a tenant transaction.
import { joined, literal, statement, type Statement } from "../../db/pipeline";
import { project, type EnvironmentRow, type ProjectionEvent } from "./projection";

/** The environment's row as the projection's first statement answers it (all null when there is none), with the next deadline. */
export interface LockedEnvironment extends Nullable<StoredRow> {
  next_deadline: Date | null;
  /** A console may be watching the organization live (worker/live): a change is worth telling. */
  watched: boolean;
}
type Nullable<T> = { [K in keyof T]: T[K] | null };

/**
 * A projection's first statement (Scope.first, sent with BEGIN: it takes no parameters, so the
 * organization comes from the transaction's setting and the envId is a literal): the
 * environment's row locked for the projection, its next workload deadline for the alarm (the
 * projection changes no workload run), and whether a console watches the organization live.
 * `svc_locked_environment` (db/migrations/0040_projection_planned_once.sql) is planned once per backend.
 */
export const lockedEnvironment = (envId: string): Statement => statement`SELECT * FROM svc_locked_environment(${literal(envId)})`;

/** The row lockedEnvironment answered, from the transaction's first rows. */
export const lockedFrom = (first: readonly Record<string, unknown>[]) => first[0] as unknown as LockedEnvironment;

interface StoredRow {
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

/**
 * The events applied to the environment's row (`locked`, as lockedEnvironment read it): the notes of
 * events that changed nothing, and the row's upsert when something changed. The upsert takes no
 * parameters (its values are literals), so the transaction sends it with its COMMIT.
 */
export function projectOntoEnvironment(
  envId: string,
  events: readonly ProjectionEvent[],
  locked: LockedEnvironment,
): { notes: Map<number, string>; upsert: Statement | null } {
  const before = locked.state === null ? null : fromStored(locked as StoredRow);
  const { row, notes } = project(before, events);
  if (!row || notes.size === events.length) return { notes, upsert: null };
  const values = [
    envId,
    row.repository,
    row.branch,
    row.pullRequest,
    row.state,
    row.lastSequence,
    new Date(row.lastEventAt).toISOString(),
    row.startedAt,
    row.ttlSeconds,
    row.expiresAt,
    row.previewUrls,
  ].map(literal);
  // svc_upsert_environment (db/migrations/0042_environment_upsert_planned_once.sql), planned once per backend.
  const upsert = statement`SELECT svc_upsert_environment(${joined(values)})`;
  return { notes, upsert };
}
