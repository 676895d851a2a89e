// Engine tokens minted by an identity exchange live 15 minutes (spec: Authentication rule 6) and are
// never used again, yet every workflow run mints one: left alone they grow without bound (62,421 in a
// year for one organization, issue 36). The sweep deletes expired ones, oldest first, in batches that
// each end quickly (index tokens_exchange_expiry), as the maintenance role, which sees only those.
import { isNotNull } from "drizzle-orm";
import { tokens } from "../../db/schema/tokens";
import { pruneExpired } from "../../db/prune";
import type { Db } from "../../db/transaction";

export const pruneExpiredExchangeTokens = (db: Db): Promise<number> =>
  pruneExpired(db, { table: tokens, key: tokens.id, by: tokens.expiresAt, only: isNotNull(tokens.bindingId) });
