// The partition pass (spec: Events rule 3): create the current month and the next three, moving any
// of their rows out of the default partition in the same transaction; when a retention is set,
// archive every condemned month, drop them only if every archive finished, and prune the default
// partition. Idempotent; runs on a connection that takes the maintenance role, which owns the event partitions.
import { sql } from "drizzle-orm";
import type { Db } from "../../../db/transaction";
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

/** A transaction in UTC (timestamps as text come out as RFC 3339); the connection takes the maintenance role (db/roles.ts). */
async function inUtcTransaction<T>(client: Db, work: () => Promise<T>): Promise<T> {
  await client.execute(sql`BEGIN`);
  try {
    await client.execute(sql`SET LOCAL TIME ZONE 'UTC'`);
    const result = await work();
    await client.execute(sql`COMMIT`);
    return result;
  } catch (error) {
    await client.execute(sql`ROLLBACK`).catch(() => {});
    throw error;
  }
}

const inMaintenanceTransaction = <T>(client: Db, work: () => Promise<T>): Promise<T> =>
  inUtcTransaction(client, async () => {
    await client.execute(sql`SELECT pg_advisory_xact_lock(${PASS_LOCK})`);
    return work();
  });

async function createMonth(client: Db, month: Month): Promise<number | null> {
  const name = partitionName(month);
  const table = sql.identifier(name);
  return inMaintenanceTransaction(client, async () => {
    const exists = await client.execute<{ found: string | null }>(sql`SELECT to_regclass(${name})::text AS found`);
    if (exists.rows[0]?.found) return null;
    const from = monthStart(month);
    const to = monthStart(addMonths(month, 1));
    // Rows already in the default partition for this month would block attaching it: move them first.
    await client.execute(sql`CREATE TABLE ${table} (LIKE events INCLUDING DEFAULTS)`);
    const moved = await client.execute(
      sql`WITH moved AS (DELETE FROM events_default WHERE occurred_at >= ${from} AND occurred_at < ${to} RETURNING *)
       INSERT INTO ${table} SELECT * FROM moved`,
    );
    // DDL takes no parameters: the bounds travel as transaction-local settings, which the bound
    // expressions read once, when the partition is attached.
    await client.execute(sql`SELECT set_config('svc.partition_from', ${from}, true), set_config('svc.partition_to', ${to}, true)`);
    await client.execute(
      sql`ALTER TABLE events ATTACH PARTITION ${table}
       FOR VALUES FROM (current_setting('svc.partition_from')::timestamptz) TO (current_setting('svc.partition_to')::timestamptz)`,
    );
    return moved.rowCount ?? 0;
  });
}

async function attachedMonths(client: Db): Promise<Month[]> {
  const { rows } = await client.execute<{ name: string }>(
    sql`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass`,
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
 * each page is a range of the index; timestamps come out as RFC 3339 text (each page is read in UTC).
 */
async function archiveRows(client: Db, sink: ArchiveSink, prefix: string, name: string, table: PartitionTable, before: string | null): Promise<void> {
  // The object being written and whose it is.
  let writer: ArchiveWriter | null = null;
  let writing = "";
  try {
    let after: { orgId: string; id: string; at: string } | null = null;
    for (;;) {
      const conditions = [before ? sql`e.occurred_at < ${before}` : sql`TRUE`];
      if (after) conditions.push(sql`(e.org_id, e.id, e.occurred_at) > (${after.orgId}::uuid, ${after.id}, ${after.at}::timestamptz)`);
      // A page a transaction: the sink's writes come after it commits.
      const page = await inUtcTransaction(client, () =>
        client.execute<{ line: string; at: string; org_id: string; id: string }>(
          sql`SELECT row_to_json(e)::text AS line, e.occurred_at::text AS at, e.org_id::text AS org_id, e.id FROM ${sql.identifier(table)} e
           WHERE ${sql.join(conditions, sql` AND `)} ORDER BY e.org_id, e.id, e.occurred_at LIMIT ${ARCHIVE_PAGE}`,
        ),
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
      after = { orgId: last.org_id, id: last.id, at: last.at };
    }
    await writer?.finish();
  } catch (error) {
    await writer?.abort().catch(() => {});
    throw error;
  }
}

export async function runPartitionPass(client: Db, options: PartitionPassOptions): Promise<PartitionReport> {
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
    for (const month of condemned) {
      await archiveRows(client, sink, prefix, `events-${monthLabel(month)}`, partitionName(month), null);
      report.archived.push(partitionName(month));
    }
    await archiveRows(client, sink, prefix, `events-default-before-${monthLabel(cutoff)}`, "events_default", cutoffAt);
    report.archived.push("events_default");
  }
  await inMaintenanceTransaction(client, async () => {
    for (const month of condemned) {
      await client.execute(sql`DROP TABLE ${sql.identifier(partitionName(month))}`);
      report.dropped.push(partitionName(month));
    }
    const pruned = await client.execute(sql`DELETE FROM events_default WHERE occurred_at < ${cutoffAt}`);
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

export const partitionName = (m: Month): MonthTable => `events_y${m.year}m${String(m.month).padStart(2, "0")}`;

/** The tables the pass names at run time: a month's partition, or the default partition. */
type MonthTable = `events_y${number}m${string}`;
type PartitionTable = MonthTable | "events_default";

export const monthLabel = (m: Month): string => `${m.year}-${String(m.month).padStart(2, "0")}`;

export function parsePartitionName(name: string): Month | null {
  const match = /^events_y(\d{4})m(\d{2})$/.exec(name);
  return match ? { year: Number(match[1]), month: Number(match[2]) } : null;
}

export const isBefore = (a: Month, b: Month): boolean => a.year * 12 + a.month < b.year * 12 + b.month;
