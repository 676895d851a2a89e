// The audit log as a file (NDJSON): one entry a line, each with its hash and its predecessor's,
// then a last line naming the chain head. Read in pages by sequence number, so a long log streams.
import { and, desc, eq, gt, lte, sql } from "drizzle-orm";
import { auditLog } from "../../db/schema/audit";
import type { Connection, Tx } from "../../db/transaction";
import { inTenant } from "../../db/transaction";
import { STORED_TIME } from "./append";
import type { ExportedEntry, ExportHead } from "./entry";
import { ERROR_CATALOG } from "../http/catalog";
import { diagnose, FAILURE_CODE } from "../http/diagnosis";
import { log } from "../log";

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
 * Lines of the export after `afterSeq` up to `upToSeq`, oldest first, at most `limit`, each ending in a
 * newline; and the last line's seq. PostgreSQL writes each line's text but its `data`, exactly as
 * JSON.stringify writes an `ExportedEntry` (keys in its order, strings quoted as JSON quotes them,
 * `organization` as the request named it), and answers the page as one row of three texts, the lines'
 * parts apart: the Worker neither decodes nine columns of a thousand rows nor encodes an object per
 * entry, which took most of its CPU time per entry (issue 36). `data` is stored as jsonb, whose text
 * spaces and orders keys and writes numbers its own way, so the Worker still encodes it as it did.
 */
export async function exportLines(
  tx: Tx,
  orgId: string,
  afterSeq: number,
  upToSeq: number,
  limit = EXPORT_PAGE,
): Promise<{ text: string; lines: number; lastSeq: number }> {
  // Parts are joined by U+001E, which JSON text never holds unescaped.
  const { rows } = await tx.execute<{ lines: number; last_seq: string | null; heads: string | null; data: string | null; tails: string | null }>(sql`
    SELECT count(*)::int AS lines, max(seq) AS last_seq, string_agg(head, chr(30) ORDER BY seq) AS heads,
           string_agg(data, chr(30) ORDER BY seq) AS data, string_agg(tail, chr(30) ORDER BY seq) AS tails
    FROM (
      SELECT seq,
        '{"organization":' || to_json(${orgId}::text) || ',"seq":' || seq || ',"at":' || to_json(${STORED_TIME(sql`created_at`)}) ||
        ',"action":' || to_json(action) || ',"actorPersonId":' || coalesce(to_json(actor_person_id)::text, 'null') ||
        ',"actor":' || to_json(actor_label) || ',"target":' || coalesce(to_json(target)::text, 'null') || ',"data":' AS head,
        data::text AS data,
        ',"prevHash":' || coalesce(to_json(prev_hash)::text, 'null') || ',"hash":' || to_json(hash) || '}' AS tail
      FROM audit_log WHERE org_id = ${orgId} AND seq > ${afterSeq} AND seq <= ${upToSeq}
      ORDER BY seq LIMIT ${limit}
    ) AS page`);
  const page = rows[0]!;
  if (page.lines === 0) return { text: "", lines: 0, lastSeq: afterSeq };
  const [heads, tails] = [page.heads!.split("\u001e"), page.tails!.split("\u001e")];
  // Every entry's data in one parse: the jsonb texts as the items of one array.
  const data = JSON.parse(`[${page.data!.replaceAll("\u001e", ",")}]`) as unknown[];
  let text = "";
  for (let i = 0; i < page.lines; i++) text += heads[i]! + JSON.stringify(data[i]) + tails[i]! + "\n";
  return { text, lines: page.lines, lastSeq: Number(page.last_seq) };
}

/**
 * The export as a stream: the head is fixed first, so entries appended while it streams are left for
 * the next export and the file still ends with a head its entries reach. While a page is sent the
 * next one is read. (The request's pool stays open until the body is sent: worker/http/services.ts.)
 */
export function streamAuditExport(connect: () => Promise<Connection>, orgId: string, pageLines = EXPORT_PAGE): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let head: Promise<{ seq: number; hash: string | null }> | null = null;
  let next: Promise<{ text: string; lines: number; lastSeq: number }> | null = null;
  let entries = 0;
  const read = (after: number) =>
    (head ??= inTenant(connect, orgId, async (tx) => {
      const [last] = await tx
        .select({ seq: auditLog.seq, hash: auditLog.hash })
        .from(auditLog)
        .where(eq(auditLog.orgId, orgId))
        .orderBy(desc(auditLog.seq))
        .limit(1);
      return last ?? { seq: 0, hash: null };
    })).then((fixed) =>
      after < fixed.seq ? inTenant(connect, orgId, (tx) => exportLines(tx, orgId, after, fixed.seq, pageLines)) : { text: "", lines: 0, lastSeq: after },
    );
  return new ReadableStream({
    async pull(controller) {
      let page: Awaited<ReturnType<typeof read>>;
      try {
        page = await (next ?? read(0));
      } catch (error) {
        // The database went away mid-download (or something else failed): the file ends with a line
        // saying so instead of the head, so it is visibly incomplete (`svc audit verify` refuses it),
        // and the failure is logged once. An errored body would be reported as an uncaught exception.
        const { kind, errorClass, sqlState } = diagnose(error);
        const code = FAILURE_CODE[kind];
        log("error", "audit.export_failed", { code, kind, errorClass, ...(sqlState ? { sqlState } : {}), entries });
        controller.enqueue(encoder.encode(`${JSON.stringify({ error: { code, message: ERROR_CATALOG[code].message, entriesSent: entries } })}\n`));
        controller.close();
        return;
      }
      if (page.lines === 0) {
        const fixed = await head!;
        const last: ExportHead = { head: { organization: orgId, seq: fixed.seq, hash: fixed.hash, entries, exportedAt: new Date().toISOString() } };
        controller.enqueue(encoder.encode(JSON.stringify(last) + "\n"));
        controller.close();
        return;
      }
      entries += page.lines;
      next = read(page.lastSeq);
      // Its failure reaches the download when the next pull awaits it; a download cancelled before then never does.
      next.catch(() => {});
      controller.enqueue(encoder.encode(page.text));
    },
  });
}
