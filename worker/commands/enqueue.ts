// A teardown or cancellation becomes a durable command row that an engine claims. The console
// procedures that create them arrive later; tests and those procedures call this.
import type { Tx } from "../../db/transaction";

export type CommandKind = "teardown" | "cancel";

export async function enqueueCommand(tx: Tx, orgId: string, command: { envId: string; kind: CommandKind; runId?: string }): Promise<string> {
  const { rows } = await tx.sql.query<{ id: string }>("INSERT INTO runtime_commands (org_id, env_id, kind, run_id) VALUES ($1, $2, $3, $4) RETURNING id", [
    orgId,
    command.envId,
    command.kind,
    command.runId ?? null,
  ]);
  return rows[0]!.id;
}

// A teardown is confirmed by the engine's environment.torn_down event, not by its acknowledgement.
export async function confirmTeardowns(tx: Tx, orgId: string, envId: string): Promise<void> {
  await tx.sql.query("UPDATE runtime_commands SET confirmed_at = now() WHERE org_id = $1 AND env_id = $2 AND kind = 'teardown' AND confirmed_at IS NULL", [
    orgId,
    envId,
  ]);
}
