// Verifying an organization's audit hash chain: each entry names the hash of the one before and
// hashes exactly what is stored; an edited, removed or inserted entry breaks it from there on.
import type { Tx } from "../../db/transaction";
import { brokenLink } from "./entry";
import { exportPage } from "./export";

export interface ChainVerdict {
  entries: number;
  intact: boolean;
  /** The first entry whose link or hash does not match, when broken. */
  brokenAt: number | null;
  /** The last entry: what an exported file must end with. */
  head: { seq: number; hash: string } | null;
}

export async function verifyChain(tx: Tx, orgId: string): Promise<ChainVerdict> {
  let previous: string | null = null;
  let entries = 0;
  let head: ChainVerdict["head"] = null;
  for (let page = await exportPage(tx, orgId, 0); page.length > 0; page = await exportPage(tx, orgId, page[page.length - 1]!.seq)) {
    for (const entry of page) {
      entries += 1;
      if (await brokenLink(previous, entry)) return { entries, intact: false, brokenAt: entry.seq, head: null };
      previous = entry.hash;
      head = { seq: entry.seq, hash: entry.hash };
    }
  }
  return { entries, intact: true, brokenAt: null, head };
}
