// A session lives at most LIFETIME_DAYS (store.ts), and its cookie as long: past that no browser can
// present it, and its row would only keep a client address, a user agent and, for one a deletion ended,
// the deleted organization's name. The sweep deletes it a day later (the database's policy,
// db/migrations/0043_sessions_pruned.sql, shows the maintenance role those rows only), oldest first, in
// batches that each end quickly (index sessions_created).
import { sql } from "drizzle-orm";
import { pruneExpired } from "../../db/prune";
import { sessions } from "../../db/schema/people";
import type { Db } from "../../db/transaction";
import { LIFETIME_DAYS } from "./store";

/** Days after it began that a session's row goes: its lifetime and a day's margin. */
const SESSION_KEPT_DAYS = LIFETIME_DAYS + 1;

export const pruneEndedSessions = (db: Db): Promise<number> =>
  pruneExpired(db, { table: sessions, key: sessions.id, by: sessions.createdAt, before: sql`now() - make_interval(days => ${SESSION_KEPT_DAYS})` });
