// A teardown or cancellation becomes a durable command row that an engine claims: what
// `environments.teardown` and `workloads.cancelRun` call; the environment's torn_down event confirms it.
import { and, eq, isNull, sql } from "drizzle-orm";
import { runtimeCommands } from "../../db/schema/workloads";
import type { Tx } from "../../db/transaction";

export type CommandKind = "teardown" | "cancel";

export async function enqueueCommand(tx: Tx, orgId: string, command: { envId: string; kind: CommandKind; runId?: string }): Promise<string> {
  const [row] = await tx
    .insert(runtimeCommands)
    .values({ orgId, envId: command.envId, kind: command.kind, runId: command.runId ?? null })
    .returning({ id: runtimeCommands.id });
  return row!.id;
}

// A teardown is confirmed by the engine's environment.torn_down event, not by its acknowledgement.
export async function confirmTeardowns(tx: Tx, orgId: string, envId: string): Promise<void> {
  await tx
    .update(runtimeCommands)
    .set({ confirmedAt: sql`now()` })
    .where(and(eq(runtimeCommands.orgId, orgId), eq(runtimeCommands.envId, envId), eq(runtimeCommands.kind, "teardown"), isNull(runtimeCommands.confirmedAt)));
}
