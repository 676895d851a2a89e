// Storing a batch: one multi-row insert that is idempotent on (organization, id, occurredAt).
// Duplicates inside the batch are folded in SQL (DISTINCT ON), retries and concurrent copies by
// ON CONFLICT DO NOTHING; what the insert returns tells accepted from duplicate.
import { positionsOf, touchedPositions } from "../../db/positions";
import type { Tx } from "../../db/transaction";
import type { IngestedEvent } from "./schemas";

// The batch travels as one JSON document: turning 500 events into six PostgreSQL array literals costs
// the Worker more than JSON.stringify does, and PostgreSQL reads either as fast. (Validation has
// refused NUL characters and lone surrogates, which neither text nor jsonb can hold.)
const INSERT_BATCH = `
WITH input AS (
  SELECT * FROM jsonb_to_recordset($2::jsonb)
    AS t(id text, occurred_at timestamptz, type text, env_id text, sequence bigint, payload jsonb, ord int)
), firsts AS (
  SELECT DISTINCT ON (id, occurred_at) * FROM input ORDER BY id, occurred_at, ord
), inserted AS (
  INSERT INTO events (org_id, id, occurred_at, type, env_id, sequence, payload, token_id)
  SELECT $1, id, occurred_at, type, env_id, sequence, payload, $3 FROM firsts
  ON CONFLICT DO NOTHING
  RETURNING id, occurred_at
)
SELECT ${positionsOf("firsts.ord")} FROM firsts JOIN inserted USING (id, occurred_at)`;

/** Returns the positions (0-based, within `events`) of the events this call stored. */
export async function storeEvents(tx: Tx, orgId: string, tokenId: string, events: readonly IngestedEvent[]): Promise<Set<number>> {
  if (events.length === 0) return new Set();
  const rows = events.map((event, ord) => ({
    id: event.id,
    occurred_at: event.occurredAt,
    type: event.type,
    env_id: event.envId ?? null,
    sequence: event.sequence ?? null,
    payload: event.payload ?? {},
    ord,
  }));
  return touchedPositions(tx, INSERT_BATCH, [orgId, JSON.stringify(rows), tokenId]);
}
