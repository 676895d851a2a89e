// Verifying an organization's audit hash chain: each entry names the hash of the one before and
// hashes exactly what is stored; an edited, removed or inserted entry breaks it from there on.
// A call checks at most `limit` entries and says where to go on (`next`), so a chain of millions is
// checked in calls of bounded CPU time, each continuing from the hash the previous call verified.
import type { Tx } from "../../db/transaction";
import { brokenLink } from "./entry";
import { EXPORT_PAGE, exportPage } from "./export";

/** Entries one call checks at most: 0.75 s for a whole call at a year's scale on the development machine (bench/README.md, "A year of data"). */
export const VERIFY_BATCH = 20_000;

/** The last entry checked, and its hash: where the next call continues. */
export interface ChainPoint {
  seq: number;
  hash: string;
}

export interface ChainVerdict {
  /** Entries this call checked. */
  entries: number;
  intact: boolean;
  /** The first entry whose link or hash does not match, when broken. */
  brokenAt: number | null;
  /** The last entry, once the whole chain is checked: what an exported file must end with. */
  head: ChainPoint | null;
  /** Where the next call continues; null when this call reached the end (or found a break). */
  next: ChainPoint | null;
}

export async function verifyChain(tx: Tx, orgId: string, after: ChainPoint | null = null, limit = VERIFY_BATCH): Promise<ChainVerdict> {
  let previous: ChainPoint | null = after;
  let entries = 0;
  while (entries < limit) {
    const wanted = Math.min(EXPORT_PAGE, limit - entries);
    const page = await exportPage(tx, orgId, previous?.seq ?? 0, wanted);
    for (const entry of page) {
      entries += 1;
      if (await brokenLink(previous?.hash ?? null, entry)) return { entries, intact: false, brokenAt: entry.seq, head: null, next: null };
      previous = { seq: entry.seq, hash: entry.hash };
    }
    if (page.length < wanted) return { entries, intact: true, brokenAt: null, head: previous, next: null };
  }
  // The limit was reached: the chain may go on (a next call that finds nothing more answers the head).
  return { entries, intact: true, brokenAt: null, head: null, next: previous };
}
