// The audit log as a file (NDJSON): one entry a line, each with its hash and its predecessor's,
// then a last line naming the chain head. Read in pages by sequence number, so a long log streams.
import { and, desc, eq, gt, lte } from "drizzle-orm";
import { auditLog } from "../../db/schema/audit";
import type { Connection, Tx } from "../../db/transaction";
import { inTenant } from "../../db/transaction";
import { STORED_TIME } from "./append";
import type { ExportedEntry, ExportHead } from "./entry";

export const EXPORT_PAGE = 1000;

/** Entries after `afterSeq`, oldest first, at most `limit`. */
export async function exportPage(tx: Tx, orgId: string, afterSeq: number, limit = EXPORT_PAGE, upToSeq = Number.MAX_SAFE_INTEGER): Promise<ExportedEntry[]> {
  const rows = await tx
    .select({
      seq: auditLog.seq,
      at: STORED_TIME(auditLog.createdAt),
      action: auditLog.action,
      actorPersonId: auditLog.actorPersonId,
      actorLabel: auditLog.actorLabel,
      target: auditLog.target,
      data: auditLog.data,
      prevHash: auditLog.prevHash,
      hash: auditLog.hash,
    })
    .from(auditLog)
    .where(and(eq(auditLog.orgId, orgId), gt(auditLog.seq, afterSeq), lte(auditLog.seq, upToSeq)))
    .orderBy(auditLog.seq)
    .limit(limit);
  return rows.map((row) => ({
    organization: orgId,
    seq: row.seq,
    at: row.at,
    action: row.action,
    actorPersonId: row.actorPersonId,
    actor: row.actorLabel,
    target: row.target,
    data: row.data,
    prevHash: row.prevHash,
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
      const [last] = await tx
        .select({ seq: auditLog.seq, hash: auditLog.hash })
        .from(auditLog)
        .where(eq(auditLog.orgId, orgId))
        .orderBy(desc(auditLog.seq))
        .limit(1);
      return last ?? { seq: 0, hash: null };
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
