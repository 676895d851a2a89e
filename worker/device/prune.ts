// A device sign-in lives DEVICE_CODE_SECONDS (flow.ts). The sweep deletes it a day after its expiry, so
// that a CLI polling just after is still told expired_token (RFC 8628), not invalid_grant; oldest first,
// in batches (index device_authorizations_expiry), as the maintenance role, which sees only those.
import { sql } from "drizzle-orm";
import { pruneExpired } from "../../db/prune";
import { deviceAuthorizations } from "../../db/schema/signin";
import type { Db } from "../../db/transaction";

export const pruneEndedDeviceSignIns = (db: Db): Promise<number> =>
  pruneExpired(db, { table: deviceAuthorizations, key: deviceAuthorizations.id, by: deviceAuthorizations.expiresAt, before: sql`now() - interval '1 day'` });
