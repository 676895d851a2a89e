// Storing a batch: one multi-row insert that is idempotent on (organization, id, occurredAt).
// Duplicates inside the batch are folded in SQL (DISTINCT ON), retries and concurrent copies by
// ON CONFLICT DO NOTHING; what the insert returns tells accepted from duplicate.
import { ACTING_ORG, ADMITTED_TOKEN, literal, type Piggyback, statement } from "../../db/pipeline";
import { positionsIn } from "../../db/positions";
import type { Tx } from "../../db/transaction";
import type { IngestedEvent } from "./schemas";

// The batch travels as one JSON document of positional rows: turning 500 events into six PostgreSQL
// array literals costs the Worker more than JSON.stringify does, PostgreSQL reads either as fast, and
// rows without keys are a third smaller to build, send and parse. (Validation has refused NUL
// characters and lone surrogates, which neither text nor jsonb can hold.) A statement without
// parameters (the document a quoted literal, db/pipeline.ts), so that it can go with the statement
// that admits the token and the COMMIT in one round trip; it stores nothing for a token the
// transaction did not admit, names the admitted token as the events' sender, and the organization the
// transaction acts as (the token's) as their owner.
const insertBatch = (rows: string) => statement`
WITH input AS (
  SELECT e->>0 AS id, (e->>1)::timestamptz AS occurred_at, e->>2 AS type, e->>3 AS env_id, (e->>4)::bigint AS sequence, e->5 AS payload, ord
  FROM jsonb_array_elements(${literal(rows)}::jsonb) WITH ORDINALITY AS t(e, ord)
), firsts AS (
  SELECT DISTINCT ON (id, occurred_at) * FROM input ORDER BY id, occurred_at, ord
), inserted AS (
  INSERT INTO events (org_id, id, occurred_at, type, env_id, sequence, payload, token_id)
  SELECT ${ACTING_ORG}, id, occurred_at, type, env_id, sequence, payload, ${ADMITTED_TOKEN} FROM firsts
  WHERE ${ADMITTED_TOKEN} IS NOT NULL
  ON CONFLICT DO NOTHING
  RETURNING id, occurred_at
)
SELECT string_agg((firsts.ord - 1)::text, ',') AS positions FROM firsts JOIN inserted USING (id, occurred_at)`;

/** An event this batch stored, at its position in the batch. */
export interface StoredEvent {
  position: number;
  event: IngestedEvent;
}

/**
 * What else writes an event of some types, in the transaction that stored it, for the events this
 * batch stored (a duplicate was written with the batch that stored it). Answers, by position, the
 * note each event's outcome carries (what it recorded, or why it changed nothing).
 */
export type StoreStep = (tx: Tx, orgId: string, events: readonly StoredEvent[]) => Promise<Map<number, string>>;

/** The insert of `events` and how its rows read: the positions (0-based, within `events`) of the events it stored. */
export function storeEvents(events: readonly IngestedEvent[]): Piggyback<Set<number>> {
  const rows = events.map((event) => [event.id, event.occurredAt, event.type, event.envId ?? null, event.sequence ?? null, event.payload ?? {}]);
  return { text: insertBatch(JSON.stringify(rows)), read: positionsIn };
}
