// A teardown is confirmed by the engine's environment.torn_down event, not by its acknowledgement.
import type { Tx } from "../../db/transaction";

export async function confirmTeardowns(tx: Tx, orgId: string, envId: string): Promise<void> {
  await tx.sql.query("UPDATE runtime_commands SET confirmed_at = now() WHERE org_id = $1 AND env_id = $2 AND kind = 'teardown' AND confirmed_at IS NULL", [
    orgId,
    envId,
  ]);
}
