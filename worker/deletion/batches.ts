// The Delete step's removal of an organization's rows: bounded batches, each one statement in its own
// short transaction, over as many invocations as it takes. What is left is the progress: an
// invocation that stops (its time is up) leaves the deletion due, and the next one goes on from the
// rows still there. Which tables go by batch, and in which order, is declared here; a test walks the
// catalog and fails on a table of an organization declared neither here nor as bounded.
import { type SQL, sql } from "drizzle-orm";
import { withDb } from "../../db/neon";
import { diagnose } from "../http/diagnosis";
import { type Connection, type Db, inTenant } from "../../db/transaction";

/** Rows one batch removes: a batch of the costliest table (workload runs, two foreign-key checks a row) stays well under a second. */
export const BATCH_ROWS = 2_000;

/** How long an invocation starts new batches: a sweep (every five minutes) leaves the rest to the next. */
export const DELETE_BUDGET_MS = 20_000;

/**
 * Tables whose rows grow with the organization's use, emptied in this order: the largest first, and
 * each before every table it references (so no batch trips a foreign key, and no cascade from a
 * batch reaches further rows). `events` goes partition by partition.
 */
export const BATCHED_TABLES = [
  "events",
  "audit_log",
  // 35 days an environment: many rows for an organization of many environments.
  "activity_daily",
  "network_decisions",
  "run_verdicts",
  "run_artifacts",
  "engine_runs",
  "goldens",
  "runtime_commands",
  "workload_runs",
  "tokens",
  "pr_credentials",
  "repository_claims",
  "installation_repositories",
  "environments",
  "pr_commit_approvals",
  "workflow_dispatches",
  "protocol_refresh_tokens",
  "protocol_grants",
  "invitations",
  "change_proposals",
  "data_exports",
  "billing_history",
  // Last: until its members go, an owner can follow the deletion (deletion.status).
  "memberships",
] as const;

/** Tables the organization's row still cascades to, removed with it last: each bounded by what people configure, not by use. */
export const BOUNDED_TABLES: Record<string, string> = {
  organizations: "the organization's own row",
  deletions: "one row",
  deletion_steps: "one row a step",
  billing_customers: "one row",
  subscriptions: "the few the organization bought",
  installations: "one per account the App is installed on",
  policy_files: "one per kind",
  provider_budgets: "one per model provider",
  provider_keys: "a few per model provider",
  provider_spend: "one per model provider and month",
  spend_daily: "35 days a model provider (the sweep removes older days)",
  repository_claim_proofs: "none after the Revoke step",
  runtimes: "one per named runtime",
  workloads: "one per workload defined",
  workload_versions: "one per change of a workload's definition",
  device_authorizations: "device sign-ins, 15 minutes each, deleted a day after (worker/device/prune.ts)",
};

/**
 * Batched tables the application role may not delete from (the audit log is append-only; dispatches,
 * claims and grants are kept as records): the maintenance role removes their rows, of an organization
 * whose deletion is at this step only (migrations/0030), picking each batch by this key, the one
 * column besides org_id it may read. The events' partitions are the maintenance role's own.
 */
export const BY_MAINTENANCE: Readonly<Record<string, string>> = { audit_log: "seq", workflow_dispatches: "id", repository_claims: "id", protocol_grants: "id" };

/** How much an invocation removes: `rows` a batch, and no batch started after `stopAt` (ms since the epoch) once one removed rows. */
export interface Batches {
  rows: number;
  stopAt: number;
}

/** The invocation's time is up and rows are left: the deletion stays due, the next invocation goes on. */
export class Unfinished {
  constructor(readonly rowsRemoved: number) {}
}

/**
 * One batch of the organization's rows of `table` (each picked by `picked`) and the deletion's
 * progress, in one statement: answers how many rows went.
 */
const batch = (table: string, orgId: string, picked: SQL) =>
  sql`WITH gone AS (DELETE FROM ${sql.identifier(table)} WHERE ${picked} RETURNING 1),
     progress AS (UPDATE deletions SET rows_removed = rows_removed + (SELECT count(*) FROM gone) WHERE org_id = ${orgId})
   SELECT count(*)::int AS removed FROM gone`;

/** Rows by their address in the table (unique within one table, so within one partition). */
const byAddress = (table: string, orgId: string, rows: number) =>
  batch(table, orgId, sql`ctid = ANY(ARRAY(SELECT ctid FROM ${sql.identifier(table)} WHERE org_id = ${orgId} LIMIT ${rows}))`);

/** Rows by a key column. */
const byKey = (table: string, key: string, orgId: string, rows: number) => {
  const column = sql.identifier(key);
  return batch(
    table,
    orgId,
    sql`org_id = ${orgId} AND ${column} = ANY(ARRAY(SELECT ${column} FROM ${sql.identifier(table)} WHERE org_id = ${orgId} LIMIT ${rows}))`,
  );
};

const removed = async (db: Db, statement: SQL) => (await db.execute<{ removed: number }>(statement)).rows[0]!.removed;

/** A batch of one table (one partition of the events), answering how many rows went. */
type Remove = (rows: number) => Promise<number>;

/** Every batched table, in order: the events' partitions as they are now, each its own. */
async function removals(connect: () => Promise<Connection>, maintenance: Db, orgId: string): Promise<Remove[]> {
  const partitions = await maintenance.execute<{ name: string }>(
    sql`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass ORDER BY 1`,
  );
  const asMaintenance =
    (statement: (rows: number) => SQL): Remove =>
    (rows) =>
      removed(maintenance, statement(rows));
  return BATCHED_TABLES.flatMap((table) => {
    if (table === "events") return partitions.rows.map(({ name }) => asMaintenance((rows) => byAddress(name, orgId, rows)));
    const key = BY_MAINTENANCE[table];
    if (key) return [asMaintenance((rows) => byKey(table, key, orgId, rows))];
    return [(rows: number) => inTenant(connect, orgId, (tx) => removed(tx, byAddress(table, orgId, rows)))];
  });
}

/** Connections lost in a row, with nothing removed between them, before an invocation gives up. */
const LOST_IN_A_ROW = 3;

/**
 * Removes the organization's rows of every batched table, batch by batch, until a whole pass over
 * them finds none (a row written meanwhile is found by the next pass); answers how many went. Throws
 * `Unfinished` when the time is up first. The application role removes what its tenant policy lets
 * it; `maintenanceUrl`'s role the events and the tables in BY_MAINTENANCE. A batch is one statement,
 * in its own transaction, so a lost connection took nothing with it: the invocation goes on with
 * another one, and gives up (the database unreachable) only after LOST_IN_A_ROW without progress.
 */
export async function removeInBatches(connect: () => Promise<Connection>, maintenanceUrl: string, orgId: string, batches: Batches): Promise<number> {
  const progress = { total: 0, lostInARow: 0 };
  for (;;) {
    try {
      return await withDb(maintenanceUrl, "svc_maintenance", (maintenance) => removeAll(connect, maintenance, orgId, batches, progress));
    } catch (error) {
      if (diagnose(error).kind !== "database_unreachable" || ++progress.lostInARow >= LOST_IN_A_ROW) throw error;
      if (progress.total > 0 && Date.now() >= batches.stopAt) throw new Unfinished(progress.total);
    }
  }
}

async function removeAll(
  connect: () => Promise<Connection>,
  maintenance: Db,
  orgId: string,
  batches: Batches,
  progress: { total: number; lostInARow: number },
): Promise<number> {
  for (;;) {
    let pass = 0;
    for (const remove of await removals(connect, maintenance, orgId)) {
      for (;;) {
        if (progress.total > 0 && Date.now() >= batches.stopAt) throw new Unfinished(progress.total);
        const gone = await remove(batches.rows);
        progress.total += gone;
        if (gone > 0) progress.lostInARow = 0;
        pass += gone;
        if (gone < batches.rows) break;
      }
    }
    if (pass === 0) return progress.total;
  }
}
