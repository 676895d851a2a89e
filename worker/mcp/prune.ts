// Model clients' refresh tokens rotate on every use, and a spent one stays until it would have expired,
// so that presented again it revokes its family (db/migrations/0035_refresh_tokens.sql); a rotation
// removes its own family's expired ones, but a family that stops rotating would keep its tokens for
// good. Past its expiry nothing reads a token: the sweep deletes them, oldest first, in batches that
// each end quickly (index protocol_refresh_tokens_expiry), as the maintenance role, which sees only those.
import { pruneExpired } from "../../db/prune";
import { protocolRefreshTokens } from "../../db/schema/mcp";
import type { Db } from "../../db/transaction";

export const pruneExpiredRefreshTokens = (db: Db): Promise<number> =>
  pruneExpired(db, { table: protocolRefreshTokens, key: protocolRefreshTokens.tokenHash, by: protocolRefreshTokens.expiresAt });
