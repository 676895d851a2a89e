// The one way an audit entry is written. Entries form a hash chain per organization; appends are
// serialized per organization (a transaction-scoped advisory lock) so concurrent writers never fork it.
import { desc, eq, type SQL, sql, type SQLWrapper } from "drizzle-orm";
import { auditLog } from "../../db/schema/audit";
import type { Tx } from "../../db/transaction";
import { sha256Hex } from "../http/hash";

export interface AuditEntry {
  orgId: string;
  action: string;
  actorPersonId?: string | null;
  /** Who acted, as the log should show it even after the person's account is closed. */
  actorLabel: string;
  target?: string | null;
  data?: Record<string, unknown>;
}

/** JSON with object keys sorted: jsonb does not keep key order, so the hash must not depend on it. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** The hashed form: exactly the stored fields, timestamps at the database's microsecond precision. */
export const chainText = (prevHash: string | null, seq: number, entry: Required<AuditEntry>, createdAt: string) =>
  JSON.stringify(canonical([prevHash, seq, entry.orgId, entry.action, entry.actorPersonId, entry.actorLabel, entry.target, entry.data, createdAt]));

/** A timestamp as the chain hashes it: UTC, microseconds, the precision timestamptz stores. */
export const STORED_TIME = (column: SQLWrapper): SQL<string> =>
  sql<string>`to_char(date_trunc('microseconds', ${column}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export async function appendAudit(tx: Tx, entry: AuditEntry): Promise<{ seq: number; hash: string }> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${"audit:" + entry.orgId}, 0))`);
  const [last] = await tx
    .select({ seq: auditLog.seq, hash: auditLog.hash })
    .from(auditLog)
    .where(eq(auditLog.orgId, entry.orgId))
    .orderBy(desc(auditLog.seq))
    .limit(1);
  const seq = (last?.seq ?? 0) + 1;
  const prevHash = last?.hash ?? null;
  const full: Required<AuditEntry> = {
    orgId: entry.orgId,
    action: entry.action,
    actorPersonId: entry.actorPersonId ?? null,
    actorLabel: entry.actorLabel,
    target: entry.target ?? null,
    data: entry.data ?? {},
  };
  // The database clock, truncated to what timestamptz stores, so the hash can be recomputed from the row.
  const { rows } = await tx.execute<{ now: string }>(sql`SELECT ${STORED_TIME(sql`now()`)} AS now`);
  const createdAt = rows[0]!.now;
  const hash = await sha256Hex(chainText(prevHash, seq, full, createdAt));
  // created_at defaults to now(): the same instant (one transaction) as the hashed time, at full precision.
  await tx.insert(auditLog).values({ ...full, seq, prevHash, hash });
  return { seq, hash };
}
