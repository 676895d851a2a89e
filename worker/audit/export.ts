// The audit log as a file (NDJSON): one entry a line, each with its hash and its predecessor's,
// then a last line naming the chain head. Read in pages by sequence number, so a long log streams.
import type { Connection, Tx } from "../../db/transaction";
import { inTenant } from "../../db/transaction";
import { STORED_TIME } from "./append";
import type { ExportedEntry, ExportHead } from "./entry";

export const EXPORT_PAGE = 1000;

/** Entries after `afterSeq`, oldest first, at most `limit`. */
export async function exportPage(tx: Tx, orgId: string, afterSeq: number, limit = EXPORT_PAGE, upToSeq = Number.MAX_SAFE_INTEGER): Promise<ExportedEntry[]> {
  const { rows } = await tx.sql.query<{
    seq: string;
    at: string;
    action: string;
    actor_person_id: string | null;
    actor_label: string;
    target: string | null;
    data: Record<string, unknown>;
    prev_hash: string | null;
    hash: string;
  }>(
    `SELECT seq, ${STORED_TIME("created_at")} AS at, action, actor_person_id, actor_label, target, data, prev_hash, hash
     FROM audit_log WHERE org_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4`,
    [orgId, afterSeq, upToSeq, limit],
  );
  return rows.map((row) => ({
    organization: orgId,
    seq: Number(row.seq),
    at: row.at,
    action: row.action,
    actorPersonId: row.actor_person_id,
    actor: row.actor_label,
    target: row.target,
    data: row.data,
    prevHash: row.prev_hash,
    hash: row.hash,
  }));
}

/**
 * The export as a stream: the head is fixed first, so entries appended while it streams are left for
 * the next export and the file still ends with a head its entries reach. (The request's pool stays
 * open until the body is sent: worker/http/services.ts.)
 */
export function streamAuditExport(connect: () => Promise<Connection>, orgId: string): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let head: { seq: number; hash: string | null } | null = null;
  let after = 0;
  let entries = 0;
  return new ReadableStream({ pull: (controller) => nextChunk(controller) });

  async function nextChunk(controller: ReadableStreamDefaultController<Uint8Array>) {
    head ??= await inTenant(connect, orgId, async (tx) => {
      const { rows } = await tx.sql.query<{ seq: string; hash: string }>("SELECT seq, hash FROM audit_log WHERE org_id = $1 ORDER BY seq DESC LIMIT 1", [
        orgId,
      ]);
      return rows[0] ? { seq: Number(rows[0].seq), hash: rows[0].hash } : { seq: 0, hash: null };
    });
    const page = after < head.seq ? await inTenant(connect, orgId, (tx) => exportPage(tx, orgId, after, EXPORT_PAGE, head!.seq)) : [];
    if (page.length === 0) {
      const last: ExportHead = { head: { organization: orgId, seq: head.seq, hash: head.hash, entries, exportedAt: new Date().toISOString() } };
      controller.enqueue(encoder.encode(JSON.stringify(last) + "\n"));
      controller.close();
      return;
    }
    entries += page.length;
    after = page[page.length - 1]!.seq;
    controller.enqueue(encoder.encode(page.map((entry) => JSON.stringify(entry)).join("\n") + "\n"));
  }
}
