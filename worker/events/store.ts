// Storing a batch: one multi-row insert that is idempotent on (organization, id, occurredAt).
// Duplicates inside the batch are folded in SQL (DISTINCT ON), retries and concurrent copies by
// ON CONFLICT DO NOTHING; what the insert returns tells accepted from duplicate.
import type { Tx } from "../../db/transaction";
import type { IngestedEvent } from "./schemas";

const INSERT_BATCH = `
WITH input AS (
  SELECT * FROM unnest($2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::bigint[], $7::jsonb[])
    WITH ORDINALITY AS t(id, occurred_at, type, env_id, sequence, payload, ord)
), firsts AS (
  SELECT DISTINCT ON (id, occurred_at) * FROM input ORDER BY id, occurred_at, ord
), inserted AS (
  INSERT INTO events (org_id, id, occurred_at, type, env_id, sequence, payload, token_id)
  SELECT $1, id, occurred_at, type, env_id, sequence, payload, $8 FROM firsts
  ON CONFLICT DO NOTHING
  RETURNING id, occurred_at
)
SELECT firsts.ord::int AS ord FROM firsts JOIN inserted USING (id, occurred_at)`;

/** Returns the positions (0-based, within `events`) of the events this call stored. */
export async function storeEvents(tx: Tx, orgId: string, tokenId: string, events: readonly IngestedEvent[]): Promise<Set<number>> {
  if (events.length === 0) return new Set();
  const { rows } = await tx.sql.query<{ ord: number }>(INSERT_BATCH, [
    orgId,
    events.map((event) => event.id),
    events.map((event) => event.occurredAt),
    events.map((event) => event.type),
    events.map((event) => event.envId ?? null),
    events.map((event) => event.sequence ?? null),
    events.map((event) => JSON.stringify(event.payload ?? {})),
    tokenId,
  ]);
  return new Set(rows.map((row) => row.ord - 1));
}
