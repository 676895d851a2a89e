// Verifying an organization's audit hash chain: each entry names the hash of the one before and
// hashes exactly what is stored; an edited, removed or inserted entry breaks it from there on.
import type { Tx } from "../../db/transaction";
import { sha256Hex } from "../tokens/secret";
import { chainText, STORED_TIME } from "./append";

export interface ChainVerdict {
  entries: number;
  intact: boolean;
  /** The first entry whose link or hash does not match, when broken. */
  brokenAt: number | null;
}

export async function verifyChain(tx: Tx, orgId: string): Promise<ChainVerdict> {
  const { rows } = await tx.sql.query<{
    seq: string; action: string; actor_person_id: string | null; actor_label: string; target: string | null;
    data: Record<string, unknown>; prev_hash: string | null; hash: string; created: string;
  }>(
    `SELECT seq, action, actor_person_id, actor_label, target, data, prev_hash, hash, ${STORED_TIME("created_at")} AS created
     FROM audit_log WHERE org_id = $1 ORDER BY seq`,
    [orgId],
  );
  let previous: string | null = null;
  for (const row of rows) {
    const seq = Number(row.seq);
    const entry = { orgId, action: row.action, actorPersonId: row.actor_person_id, actorLabel: row.actor_label, target: row.target, data: row.data };
    const expected = await sha256Hex(chainText(previous, seq, entry, row.created));
    if (row.prev_hash !== previous || row.hash !== expected) return { entries: rows.length, intact: false, brokenAt: seq };
    previous = row.hash;
  }
  return { entries: rows.length, intact: true, brokenAt: null };
}
