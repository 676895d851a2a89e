// An audit entry as it is exported and verified: exactly what the chain hashes, in the order it
// hashes it, so a file can be checked offline with nothing but this module.
import { sha256Hex } from "../http/hash";
import { chainText } from "./append";

export interface ExportedEntry {
  organization: string;
  seq: number;
  /** UTC, microseconds: the instant the chain hashed. */
  at: string;
  action: string;
  actorPersonId: string | null;
  /** The actor's name as it was when the entry was written. */
  actor: string;
  target: string | null;
  data: Record<string, unknown>;
  prevHash: string | null;
  hash: string;
}

/** The last line of an export: the chain head the console shows, to detect a truncated tail. */
export interface ExportHead {
  head: { organization: string; seq: number; hash: string | null; entries: number; exportedAt: string };
}

/** Why an entry does not continue the chain from `previousHash`; null when it does. */
export async function brokenLink(previousHash: string | null, entry: ExportedEntry): Promise<string | null> {
  if (entry.prevHash !== previousHash) return "its predecessor's hash does not match the entry before it (an entry was removed, inserted or reordered)";
  const recomputed = await sha256Hex(
    chainText(
      previousHash,
      entry.seq,
      {
        orgId: entry.organization,
        action: entry.action,
        actorPersonId: entry.actorPersonId,
        actorLabel: entry.actor,
        target: entry.target,
        data: entry.data,
      },
      entry.at,
    ),
  );
  return recomputed === entry.hash ? null : "its hash does not match its contents (the entry was altered)";
}
