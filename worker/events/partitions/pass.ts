// The partition pass (spec: Events rule 3): create the current month and the next three, moving any
// of their rows out of the default partition in the same transaction; when a retention is set,
// archive every condemned month, drop them only if every archive finished, and prune the default
// partition. Idempotent; runs as the maintenance role, which owns the event partitions.
import type { SqlClient } from "../../../db/sql-client";
import type { ArchiveSink, ArchiveWriter } from "../../storage/sink";

export const MONTHS_AHEAD = 3;
// Keeps two passes (the daily cron and a start-up run) from racing on the same DDL.
const PASS_LOCK = 72_310_002;
const ARCHIVE_PAGE = 5_000;

export interface PartitionPassOptions {
  now: Date;
  retentionMonths: number | null;
  /** Null: condemned months are dropped without an archive. */
  archive: { sink: ArchiveSink; prefix: string } | null;
}

export interface PartitionReport {
  created: string[];
  movedFromDefault: number;
  archived: string[];
  dropped: string[];
  prunedFromDefault: number;
}

async function inMaintenanceTransaction<T>(client: SqlClient, work: () => Promise<T>): Promise<T> {
  await client.query("BEGIN");
  try {
    await client.query("SET LOCAL ROLE svc_maintenance");
    await client.query("SET LOCAL TIME ZONE 'UTC'");
    await client.query("SELECT pg_advisory_xact_lock($1)", [PASS_LOCK]);
    const result = await work();
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

async function createMonth(client: SqlClient, month: Month): Promise<number | null> {
  const name = partitionName(month);
  return inMaintenanceTransaction(client, async () => {
    const exists = await client.query<{ found: string | null }>("SELECT to_regclass($1)::text AS found", [name]);
    if (exists.rows[0]?.found) return null;
    const from = monthStart(month);
    const to = monthStart(addMonths(month, 1));
    // Rows already in the default partition for this month would block attaching it: move them first.
    await client.query(`CREATE TABLE ${name} (LIKE events INCLUDING DEFAULTS)`);
    const moved = await client.query(
      `WITH moved AS (DELETE FROM events_default WHERE occurred_at >= $1 AND occurred_at < $2 RETURNING *)
       INSERT INTO ${name} SELECT * FROM moved`,
      [from, to],
    );
    await client.query(`ALTER TABLE events ATTACH PARTITION ${name} FOR VALUES FROM ('${from}') TO ('${to}')`);
    return moved.rowCount ?? 0;
  });
}

async function attachedMonths(client: SqlClient): Promise<Month[]> {
  const { rows } = await client.query<{ name: string }>(
    "SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass",
  );
  return rows.map((row) => parsePartitionName(row.name)).filter((month): month is Month => month !== null);
}

/**
 * Where an organization's archived events go under the archive prefix: a folder of its own, so that
 * deleting the organization can remove them (worker/deletion) without touching anyone else's.
 */
export const archiveFolder = (prefix: string, orgId: string) => `${prefix}${prefix === "" || prefix.endsWith("/") ? "" : "/"}${orgId}/`;

/**
 * Writes the rows of `table` older than `before` (all of them when null) as one NDJSON object per
 * organization, `<folder>/<name>.ndjson`, paging in primary key order (organization, event id) so
 * each page is a range of the index; timestamps come out as RFC 3339 text (the session is in UTC).
 */
async function archiveRows(client: SqlClient, sink: ArchiveSink, prefix: string, name: string, table: string, before: string | null): Promise<void> {
  // The object being written and whose it is.
  let writer: ArchiveWriter | null = null;
  let writing = "";
  try {
    let after: unknown[] | null = null;
    for (;;) {
      const conditions = [before ? "e.occurred_at < $1" : "$1::timestamptz IS NULL"];
      if (after) conditions.push("(e.org_id, e.id, e.occurred_at) > ($2::uuid, $3, $4::timestamptz)");
      const page: { rows: Array<{ line: string; at: string; org_id: string; id: string }> } = await client.query(
        `SELECT row_to_json(e)::text AS line, e.occurred_at::text AS at, e.org_id::text AS org_id, e.id FROM ${table} e
         WHERE ${conditions.join(" AND ")} ORDER BY e.org_id, e.id, e.occurred_at LIMIT ${ARCHIVE_PAGE}`,
        [before, ...(after ?? [])],
      );
      if (page.rows.length === 0) break;
      // The page in runs of one organization each: a new organization finishes the previous object.
      for (let from = 0; from < page.rows.length; ) {
        const orgId = page.rows[from]!.org_id;
        let to = from;
        while (to < page.rows.length && page.rows[to]!.org_id === orgId) to++;
        if (!writer || writing !== orgId) {
          await writer?.finish();
          writer = await sink.open(`${archiveFolder(prefix, orgId)}${name}.ndjson`);
          writing = orgId;
        }
        await writer.append(
          page.rows
            .slice(from, to)
            .map((row) => row.line + "\n")
            .join(""),
        );
        from = to;
      }
      const last = page.rows[page.rows.length - 1]!;
      after = [last.org_id, last.id, last.at];
    }
    await writer?.finish();
  } catch (error) {
    await writer?.abort().catch(() => {});
    throw error;
  }
}

export async function runPartitionPass(client: SqlClient, options: PartitionPassOptions): Promise<PartitionReport> {
  const report: PartitionReport = { created: [], movedFromDefault: 0, archived: [], dropped: [], prunedFromDefault: 0 };
  const current = monthOf(options.now);
  for (let i = 0; i <= MONTHS_AHEAD; i++) {
    const month = addMonths(current, i);
    const moved = await createMonth(client, month);
    if (moved !== null) {
      report.created.push(partitionName(month));
      report.movedFromDefault += moved;
    }
  }
  if (options.retentionMonths === null) return report;

  const cutoff = addMonths(current, -options.retentionMonths);
  const condemned = (await attachedMonths(client)).filter((month) => isBefore(month, cutoff));
  const cutoffAt = monthStart(cutoff);
  // Archive everything first; a failure here throws before anything is dropped.
  if (options.archive) {
    const { sink, prefix } = options.archive;
    await client.query("SET TIME ZONE 'UTC'");
    await client.query("SET ROLE svc_maintenance");
    try {
      for (const month of condemned) {
        await archiveRows(client, sink, prefix, `events-${monthLabel(month)}`, partitionName(month), null);
        report.archived.push(partitionName(month));
      }
      await archiveRows(client, sink, prefix, `events-default-before-${monthLabel(cutoff)}`, "events_default", cutoffAt);
      report.archived.push("events_default");
    } finally {
      await client.query("RESET ROLE");
    }
  }
  await inMaintenanceTransaction(client, async () => {
    for (const month of condemned) {
      await client.query(`DROP TABLE ${partitionName(month)}`);
      report.dropped.push(partitionName(month));
    }
    const pruned = await client.query("DELETE FROM events_default WHERE occurred_at < $1", [cutoffAt]);
    report.prunedFromDefault = pruned.rowCount ?? 0;
  });
  return report;
}

// Month arithmetic for event partitions, in UTC. A month is named events_yYYYYmMM.
export interface Month {
  year: number;
  /** 1-12 */
  month: number;
}

export const monthOf = (date: Date): Month => ({ year: date.getUTCFullYear(), month: date.getUTCMonth() + 1 });

export function addMonths(m: Month, n: number): Month {
  const index = m.year * 12 + (m.month - 1) + n;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}

export const monthStart = (m: Month): string => `${m.year}-${String(m.month).padStart(2, "0")}-01T00:00:00Z`;

export const partitionName = (m: Month): string => `events_y${m.year}m${String(m.month).padStart(2, "0")}`;

export const monthLabel = (m: Month): string => `${m.year}-${String(m.month).padStart(2, "0")}`;

export function parsePartitionName(name: string): Month | null {
  const match = /^events_y(\d{4})m(\d{2})$/.exec(name);
  return match ? { year: Number(match[1]), month: Number(match[2]) } : null;
}

export const isBefore = (a: Month, b: Month): boolean => a.year * 12 + a.month < b.year * 12 + b.month;
