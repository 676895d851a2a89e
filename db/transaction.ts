// Tenant isolation at the database: every piece of tenant work runs in one transaction that first
// chooses its organization with a transaction-local setting, so a pooled connection never carries it
// into someone else's request, and row-level security (db/migrations) filters every read and write.
import { AsyncLocalStorage } from "node:async_hooks";
import type { SQLWrapper } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { type RawClient, send, settingsOf, statement, type Statement } from "./pipeline";
import { type Acting, TAKE_ROLE } from "./roles";

/** What a statement without `returning` answers, with either driver (both are pg-compatible). */
interface Answered extends PgQueryResultHKT {
  type: { rows: Record<string, unknown>[]; rowCount: number | null };
}

/**
 * The one handle on the database: drizzle (its query builder, and its `sql` template, whose values
 * are parameters). `execute` takes only drizzle's SQL, never a string; drizzle's own `transaction`
 * and raw `$client` are not offered (transactions are this module's callbacks). No relational schema: nothing
 * uses drizzle's relational queries, and building their configuration for every connection costs
 * each request time (bench/ingest.ts).
 */
export type Db = Omit<PgDatabase<Answered>, "execute" | "transaction" | "$client"> & {
  /** What a statement answers, with either driver (both are pg-compatible). */
  execute<Row = Record<string, unknown>>(query: SQLWrapper): Promise<{ rows: Row[]; rowCount: number | null }>;
};

/** One connection taken from a pool: drizzle for the work, the raw client for the pipeline (db/pipeline.ts). */
export interface Connection {
  db: Db;
  raw: RawClient;
  /** The role each of its transactions takes (db/roles.ts). */
  role: Acting;
  release: (error?: Error) => void;
}

/** An open transaction's handle: database work only (see `Transaction` for work that calls out). */
export type Tx = Db;

/** What a transaction acts as. `orgId` chooses the tenant; lookups name one row by a key it holds. */
export interface Scope {
  orgId?: string;
  lookups?: Partial<
    Record<
      | "token_hash"
      | "session_hash"
      | "org_slug"
      | "person_id"
      | "claim_repository"
      | "claim_proof"
      | "installation_account_id"
      | "codehost_installation"
      | "codehost_user_id"
      | "invited_email"
      | "invitation_hash"
      | "magic_link_hash"
      | "device_code_hash"
      | "user_code"
      | "person_email"
      | "billing_customer"
      | "deletion_export_hash"
      | "protocol_client_id"
      | "protocol_code_hash"
      | "protocol_token_hash"
      | "protocol_refresh_hash",
      string
    >
  >;
  /**
   * A statement without parameters sent with BEGIN and the settings, in the same round trip (it reads
   * them with current_setting): the transaction's first look-up, whose rows the work is given.
   */
  first?: Statement;
}

/** An open transaction, ended with `commit` or `rollback` (each idempotent); only the callbacks below hold one. */
interface OpenTransaction {
  tx: Tx;
  /** The rows of the scope's `first` statement (none without one). */
  first: Record<string, unknown>[];
  /** Sends a pipeline statement (db/pipeline.ts) in the transaction: its rows. */
  send: Send;
  commit: () => Promise<void>;
  rollback: () => Promise<void>;
}

/**
 * Marks the work of an open transaction (and everything it awaits or starts), per request: an
 * AsyncLocalStorage follows one request's continuations and never another's.
 */
const insideTransaction = new AsyncLocalStorage<true>();

/** Kept for the tests' afterEach, which empties it; bounded, since in production nobody does. */
const refusedCalls: string[] = [];
const REFUSED_KEPT = 100;

/**
 * The network calls refused since the last asking, and forgets them: test/setup/units-of-work.ts
 * fails the test that made one even where the thrown error was swallowed (a waitUntil, a 500 expected).
 */
export const takeRefusedNetworkCalls = (): string[] => refusedCalls.splice(0);

/**
 * Every outbound network call of ours (code host, billing provider, model provider, mail, analytics,
 * Durable Objects) asks first: a transaction holds database work only, since a call to someone
 * else's server would pin a pooled connection, and the rows it locks, for as long as that server
 * takes. Thrown in production too: it is a bug in our code, caught by the tests, and a 500 naming
 * it is safer than a pool starved by a slow host.
 */
export function assertNoTransaction(call: string): void {
  if (insideTransaction.getStore() === undefined) return;
  if (refusedCalls.length < REFUSED_KEPT) refusedCalls.push(call);
  throw new Error(
    `${call} was called while a database transaction is open: make the call before the transaction or after it commits (db/README.md, "Units of work").`,
  );
}

/** BEGIN, the connection's role, the scope's settings and its `first` statement: one simple query, so one round trip. */
function opening(scope: Scope, role: Acting): Statement {
  const settings = [
    ["app.org_id", scope.orgId ?? ""] as const,
    ...Object.entries(scope.lookups ?? {}).map(([key, value]) => [`app.lookup_${key}`, value] as const),
  ];
  const begun = role ? statement`BEGIN; ${TAKE_ROLE[role]}; ${settingsOf(settings)}` : statement`BEGIN; ${settingsOf(settings)}`;
  return scope.first ? statement`${begun}; ${scope.first}` : begun;
}

/** Ends the connection's transaction, if any, and hands the connection back; a failed ROLLBACK means it is broken, and the pool drops it. */
const rolledBack = (connection: Connection) =>
  send(connection.raw, statement`ROLLBACK`).then(
    () => connection.release(),
    (rollbackError: Error) => connection.release(rollbackError),
  );

async function openTransaction(connect: () => Promise<Connection>, scope: Scope): Promise<OpenTransaction> {
  const connection = await connect();
  const { raw } = connection;
  let ended = false;
  const rollback = async () => {
    if (ended) return;
    ended = true;
    await rolledBack(connection);
  };
  const commit = async () => {
    if (ended) return;
    try {
      await send(raw, statement`COMMIT`);
    } catch (error) {
      await rollback();
      throw error;
    }
    ended = true;
    connection.release();
  };
  try {
    // One round trip: BEGIN and the settings as one simple query; every request pays this, so the
    // trip saved counts (bench/).
    const results = await send(raw, opening(scope, connection.role));
    return { tx: connection.db, first: scope.first ? results.at(-1)! : [], send: async (text) => (await send(raw, text)).at(-1)!, commit, rollback };
  } catch (error) {
    await rollback();
    throw error;
  }
}

/** A transaction's work, given the rows of its scope's `first` statement. */
export type Work<T> = (tx: Tx, first: Record<string, unknown>[], send: Send) => Promise<T>;

/** A hot path's statement without parameters (db/pipeline.ts) sent in an open transaction: the rows it answers. */
export type Send = (statement: Statement) => Promise<Record<string, unknown>[]>;
export async function inTransaction<T>(connect: () => Promise<Connection>, scope: Scope, work: Work<T>): Promise<T> {
  const open = await openTransaction(connect, scope);
  try {
    const value = await insideTransaction.run(true, () => work(open.tx, open.first, open.send));
    await open.commit();
    return value;
  } catch (error) {
    await open.rollback();
    throw error;
  }
}

/** A transaction sent whole (inOneRoundTrip): what opens it, its last statement, how the two statements' rows read. */
export interface OneRoundTrip<T> {
  scope: Scope & { first: Statement };
  last: Statement;
  result: (first: Record<string, unknown>[], lastRows: Record<string, unknown>[]) => T;
}

/** The same transaction, its result read on from `result`'s. */
export const mapResult = <T, U>(trip: OneRoundTrip<T>, read: (value: T) => U): OneRoundTrip<U> => ({
  ...trip,
  result: (first, lastRows) => read(trip.result(first, lastRows)),
});

/**
 * A whole transaction in one round trip: BEGIN, the settings, the scope's `first` statement, `last`
 * and COMMIT as one simple query. `last` is written before any code has read `first`'s rows, so what
 * it may do, `first` decides in SQL (a hot path's token admission: `svc_principal` in db/migrations/0039);
 * `result` reads both statements' rows once committed. An error in any statement ends the query,
 * and the transaction is rolled back.
 */
export async function inOneRoundTrip<T>(connect: () => Promise<Connection>, { scope, last, result }: OneRoundTrip<T>): Promise<T> {
  const connection = await connect();
  let results: Record<string, unknown>[][];
  try {
    results = await send(connection.raw, statement`${opening(scope, connection.role)}; ${last}; COMMIT`);
  } catch (error) {
    await rolledBack(connection);
    throw error;
  }
  connection.release();
  return result(results.at(-3)!, results.at(-2)!);
}

/**
 * Opens a unit of work: a transaction, committed when `work` resolves. Code that makes network calls
 * takes one of these rather than a `Tx`, so it can read, call, then write, holding no transaction
 * across the call.
 */
export type Transaction = <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;

/** Units of work acting as one organization. */
export const tenantTransaction =
  (connect: () => Promise<Connection>, orgId: string): Transaction =>
  (work) =>
    inTenant(connect, orgId, work);

export const inTenant = <T>(connect: () => Promise<Connection>, orgId: string, work: (tx: Tx) => Promise<T>) => inTransaction(connect, { orgId }, work);
