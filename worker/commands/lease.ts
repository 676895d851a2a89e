// Handing commands to an engine and taking its acknowledgement, each a compare-and-set on state and
// lease on the database clock. A command leased but never acknowledged is handed out again. Each is
// one statement without parameters (its values literals, db/pipeline.ts) that changes nothing unless
// the transaction admitted the caller's engine token: sent with the statement that admits it and the
// COMMIT, one round trip (docs/decisions/0001-database-round-trips.md).
import { ACTING_ORG, ADMITTED_TOKEN, literal, type Piggyback, statement } from "../../db/pipeline";

/** A command's lease: unacknowledged after this long, it is handed out again. */
const COMMAND_LEASE_SECONDS = 5 * 60;

interface LeasedRow {
  id: string;
  kind: "teardown" | "cancel";
  env_id: string;
  run_id: string | null;
  lease_id: string;
  lease_expires_at: Date | string;
  created_at: Date | string;
}

const time = (value: Date | string) => new Date(value);

/** Up to `limit` waiting commands (or ones whose lease lapsed) of the token's organization, oldest first, leased to the admitted token. */
export function claimCommands(limit: number) {
  return {
    text: statement`
WITH picked AS (
  SELECT id FROM runtime_commands
  WHERE ${ADMITTED_TOKEN} IS NOT NULL AND org_id = ${ACTING_ORG}
    AND (state = 'waiting' OR (state = 'leased' AND lease_expires_at <= now()))
  ORDER BY created_at, id LIMIT ${literal(limit)}
  FOR UPDATE SKIP LOCKED
)
UPDATE runtime_commands c SET state = 'leased', lease_id = gen_random_uuid(),
  lease_expires_at = now() + make_interval(secs => ${literal(COMMAND_LEASE_SECONDS)}), holder_token_id = ${ADMITTED_TOKEN}
FROM picked WHERE c.id = picked.id
RETURNING c.id, c.kind, c.env_id, c.run_id, c.lease_id, c.lease_expires_at, c.created_at`,
    read: (rows: Record<string, unknown>[]) =>
      (rows as unknown as LeasedRow[])
        .sort((a, b) => time(a.created_at).getTime() - time(b.created_at).getTime())
        .map((row) => ({
          id: row.id,
          kind: row.kind,
          envId: row.env_id,
          runId: row.run_id,
          lease: { id: row.lease_id, expiresAt: time(row.lease_expires_at).toISOString() },
        })),
  } satisfies Piggyback<unknown>;
}

export interface Acknowledgement {
  leaseId: string;
  outcome: "done" | "failed";
  message?: string | undefined;
}

/** The leased command `commandId` acknowledged, when `ack.leaseId` is its current lease; null when no leased command matches. */
export function acknowledgeCommand(commandId: string, ack: Acknowledgement) {
  return {
    text: statement`
UPDATE runtime_commands SET state = 'acknowledged', outcome = ${literal(ack.outcome)}, message = ${literal(ack.message ?? null)}, acknowledged_at = now()
WHERE ${ADMITTED_TOKEN} IS NOT NULL AND org_id = ${ACTING_ORG} AND id = ${literal(commandId)}::uuid
  AND state = 'leased' AND lease_id = ${literal(ack.leaseId)}::uuid
RETURNING id, kind, confirmed_at`,
    read: (rows: Record<string, unknown>[]) => {
      const row = rows[0] as { id: string; kind: "teardown" | "cancel"; confirmed_at: Date | string | null } | undefined;
      if (!row) return null;
      const confirmed = row.kind === "teardown" ? row.confirmed_at !== null : null;
      return {
        id: row.id,
        kind: row.kind,
        state: "acknowledged" as const,
        outcome: ack.outcome,
        confirmed,
        ...(confirmed === false
          ? { note: "Teardown acknowledged, but nothing has confirmed it yet: the environment's environment.torn_down event has not arrived." }
          : {}),
      };
    },
  } satisfies Piggyback<unknown>;
}
