// Refresh tokens are no longer issued nor taken, but the previous release still writes them
// (db/migrations/0035_refresh_tokens.sql) while both serve: the sweep deletes those past their expiry,
// oldest first, in batches that each end quickly (index protocol_refresh_tokens_expiry), as the
// maintenance role, which sees only those, until a later release drops the table.
import { pruneExpired } from "../../db/prune";
import { protocolRefreshTokens } from "../../db/schema/mcp";
import type { Db } from "../../db/transaction";

export const pruneExpiredRefreshTokens = (db: Db): Promise<number> =>
  pruneExpired(db, { table: protocolRefreshTokens, key: protocolRefreshTokens.tokenHash, by: protocolRefreshTokens.expiresAt });
