// Handing commands to an engine and taking its acknowledgement, each a compare-and-set on state and
// lease on the database clock. A command leased but never acknowledged is handed out again.
import { and, eq, sql } from "drizzle-orm";
import { runtimeCommands } from "../../db/schema/workloads";
import type { Tx } from "../../db/transaction";

/** A command's lease: unacknowledged after this long, it is handed out again. */
const COMMAND_LEASE_SECONDS = 5 * 60;

const CLAIM = (orgId: string, tokenId: string, limit: number) => sql`
WITH picked AS (
  SELECT id FROM runtime_commands
  WHERE org_id = ${orgId} AND (state = 'waiting' OR (state = 'leased' AND lease_expires_at <= now()))
  ORDER BY created_at, id LIMIT ${limit}
  FOR UPDATE SKIP LOCKED
)
UPDATE runtime_commands c SET state = 'leased', lease_id = gen_random_uuid(),
  lease_expires_at = now() + make_interval(secs => ${COMMAND_LEASE_SECONDS}), holder_token_id = ${tokenId}
FROM picked WHERE c.id = picked.id
RETURNING c.id, c.kind, c.env_id, c.run_id, c.lease_id, c.lease_expires_at, c.created_at`;

export async function claimCommands(tx: Tx, orgId: string, tokenId: string, limit: number) {
  const { rows } = await tx.execute<{
    id: string;
    kind: "teardown" | "cancel";
    env_id: string;
    run_id: string | null;
    lease_id: string;
    lease_expires_at: Date;
    created_at: Date;
  }>(CLAIM(orgId, tokenId, limit));
  return rows
    .sort((a, b) => a.created_at.getTime() - b.created_at.getTime())
    .map((row) => ({
      id: row.id,
      kind: row.kind,
      envId: row.env_id,
      runId: row.run_id,
      lease: { id: row.lease_id, expiresAt: row.lease_expires_at.toISOString() },
    }));
}

export async function acknowledgeCommand(
  tx: Tx,
  orgId: string,
  commandId: string,
  ack: { leaseId: string; outcome: "done" | "failed"; message?: string | undefined },
) {
  const [row] = await tx
    .update(runtimeCommands)
    .set({ state: "acknowledged", outcome: ack.outcome, message: ack.message ?? null, acknowledgedAt: sql`now()` })
    .where(
      and(eq(runtimeCommands.orgId, orgId), eq(runtimeCommands.id, commandId), eq(runtimeCommands.state, "leased"), eq(runtimeCommands.leaseId, ack.leaseId)),
    )
    .returning({ id: runtimeCommands.id, kind: runtimeCommands.kind, confirmedAt: runtimeCommands.confirmedAt });
  if (!row) return null;
  const confirmed = row.kind === "teardown" ? row.confirmedAt !== null : null;
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
}
