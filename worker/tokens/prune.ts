// Engine tokens minted by an identity exchange live 15 minutes (spec: Authentication rule 6) and are
// never used again, yet every workflow run mints one: left alone they grow without bound (62,421 in a
// year for one organization, issue 36). The sweep deletes expired ones, oldest first, in batches that
// each end quickly (index tokens_exchange_expiry), as the maintenance role, which sees only those.
import { and, isNotNull, lte, sql } from "drizzle-orm";
import { tokens } from "../../db/schema/tokens";
import type { Db } from "../../db/transaction";

export const PRUNE_BATCH = 1000;
/** Batches a pass deletes at most; what remains waits for the next sweep (five minutes later). */
export const PRUNE_BATCHES = 20;

export async function pruneExpiredExchangeTokens(db: Db, batch = PRUNE_BATCH, batches = PRUNE_BATCHES): Promise<number> {
  let deleted = 0;
  for (let round = 0; round < batches; round += 1) {
    const expired = db
      .select({ id: tokens.id })
      .from(tokens)
      .where(and(isNotNull(tokens.bindingId), lte(tokens.expiresAt, sql`now()`)))
      .orderBy(tokens.expiresAt)
      .limit(batch);
    const { rowCount } = await db.execute(db.delete(tokens).where(sql`${tokens.id} IN (${expired})`));
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < batch) break;
  }
  return deleted;
}
