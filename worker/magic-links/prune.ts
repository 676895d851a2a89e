// A sign-in link works once, for 15 minutes, and names an e-mail address: past its expiry nothing reads
// it (a used, an expired and an unknown link are refused alike), so the sweep deletes it, address and
// all, oldest first, in batches (index magic_links_expiry), as the maintenance role, which sees only those.
import { pruneExpired } from "../../db/prune";
import { magicLinks } from "../../db/schema/signin";
import type { Db } from "../../db/transaction";

export const pruneExpiredMagicLinks = (db: Db): Promise<number> => pruneExpired(db, { table: magicLinks, key: magicLinks.id, by: magicLinks.expiresAt });
