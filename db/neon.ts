// The Worker's database access: a neon Pool per request (Workers forbids I/O objects shared across
// requests), always ended; a connection is drizzle, plus the raw client the pipeline sends its text
// through (db/pipeline.ts).
// The driver (and drizzle's adapter for it) loads on the first connection, not at isolate start: its
// module set-up is the largest part of the start's script time (bench/startup.ts), and requests that
// never reach the database (health, metrics, the console's pages) do not pay it.
import type { Client, Pool, PoolClient, QueryConfig, QueryResult } from "@neondatabase/serverless";
import { budget, DEADLINES, DeadlinePassed, within } from "./deadline";
import { forDrizzle, type RawClient } from "./pipeline";
import { type Acting, confine, takingRole } from "./roles";
import type { Connection, Db } from "./transaction";

type Driver = typeof import("@neondatabase/serverless");
type Drizzle = typeof import("drizzle-orm/neon-serverless")["drizzle"];

/** `host:port` of a local WebSocket-to-TCP bridge, or null for Neon's own proxy. */
let bridgeSetting: string | null = null;
let loaded: { driver: Driver; drizzle: Drizzle } | null = null;
let loading: Promise<{ driver: Driver; drizzle: Drizzle }> | null = null;

function applyBridge(driver: Driver): void {
  const bridge = bridgeSetting;
  if (!bridge) return;
  driver.neonConfig.wsProxy = (host, port) => `${bridge}/v1?address=${host}:${port}`;
  driver.neonConfig.useSecureWebSocket = false;
  driver.neonConfig.pipelineTLS = false;
  // pipelineConnect stays "password" (the driver's default, as against Neon): the startup, the
  // password and the first statement leave in one write, and the bridge holds what comes early.
}

/** The driver, loaded once per isolate and configured (the send-safe WebSocket, the bridge). */
export async function loadDriver(): Promise<Driver> {
  return (await load()).driver;
}

function load(): Promise<{ driver: Driver; drizzle: Drizzle }> {
  if (loaded) return Promise.resolve(loaded);
  loading ??= Promise.all([import("@neondatabase/serverless"), import("drizzle-orm/neon-serverless")]).then(([driver, adapter]) => {
    /**
     * The runtime's WebSocket, except that a send once the socket is closing or closed is dropped. The
     * driver coalesces writes into a zero-delay timer; when the other side closes the socket first (a
     * proxy that cannot reach PostgreSQL), that timer's send would throw an uncaught exception, outside
     * any request, instead of the connection failing as it already does.
     */
    if (typeof WebSocket !== "undefined") {
      driver.neonConfig.webSocketConstructor = class extends WebSocket {
        override send(data: string | ArrayBuffer | ArrayBufferView<ArrayBuffer>): void {
          if (this.readyState === WebSocket.CLOSING || this.readyState === WebSocket.CLOSED) return;
          super.send(data);
        }
      };
    }
    applyBridge(driver);
    loaded = { driver, drizzle: adapter.drizzle };
    return loaded;
  });
  return loading;
}

/**
 * Points the driver at a local WebSocket-to-TCP bridge (`host:port`) instead of Neon's own proxy.
 * Only the local stack sets it; production leaves the driver's defaults.
 */
export function useBridge(bridge: string | null | undefined): void {
  if (!bridge) return;
  bridgeSetting = bridge;
  if (loaded) applyBridge(loaded.driver);
}

/**
 * The database could not be reached: opening a connection failed (the cause is the driver's error).
 * A type, so that failures are classified without reading message text.
 */
export class DatabaseUnreachable extends Error {
  override readonly name = "DatabaseUnreachable";
  constructor(cause: unknown) {
    super("The database could not be reached.", { cause });
  }
}

const unreachable = (error: unknown): never => {
  throw new DatabaseUnreachable(error);
};

// Refusals of a session rather than of a statement: authorization (28), no such database (3D), too
// many connections (53300), connection exceptions (08), shutdown (57P0x).
const SESSION_REFUSED = /^(08|28|3D|53300|57P0)/;

const sqlStateOf = (error: unknown): string => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : "";
};

/**
 * A connection's statements, each with a deadline, and its failures read for what they say of the
 * connection. The driver pipelines its start (startup, password and first statement in one write), so
 * a server that cannot be reached or refuses the session fails the connection's first statement, not
 * its connect: that failure is the database being unreachable, unless PostgreSQL refused the statement.
 * Later on, a failure without a SQLSTATE on a connection that has ended or errored (a terminated
 * backend, a dropped socket) is the database going away too, not a bug of ours. A statement without an
 * answer by its deadline breaks the connection: every later statement on it fails at once (a ROLLBACK
 * would wait as long again), and it is handed back broken, so the pool closes it instead of reusing it.
 */
function guarded(client: PoolClient | Client, statementMs: number, request = true): RawClient & { broken: () => Error | null } {
  const state = stateOf(client);
  return {
    broken: () => state.broken,
    query: (async (text: unknown, params?: unknown[]) => {
      if (state.broken) unreachable(state.broken);
      // Work that is not the request's own answer (the migrations a request applies first) keeps its cap.
      const ms = request ? budget(statementMs) : statementMs;
      try {
        const result = await within(sent(client, text, params), ms, "A database statement");
        state.answered = true;
        return result;
      } catch (error) {
        const code = sqlStateOf(error);
        if (error instanceof DeadlinePassed) state.broken = error;
        if (error instanceof DeadlinePassed || (!state.answered && (!code || SESSION_REFUSED.test(code))) || (!code && state.lost)) unreachable(error);
        throw error;
      }
    }) as RawClient["query"],
  };
}

/**
 * One statement through the driver's callback form. In workerd its promise form kept each statement's
 * query, result and rows past young-generation collections until a full one; the callback form does not
 * (docs/decisions/0001-database-round-trips.md). The config is copied: drizzle reuses one per
 * prepared query, and the driver writes the values and the callback into the config it is given.
 */
function sent(client: PoolClient | Client, text: unknown, params?: unknown[]): Promise<QueryResult> {
  const config: QueryConfig = typeof text === "string" ? { text } : { ...(text as QueryConfig) };
  if (params !== undefined) config.values = params;
  return new Promise((resolve, reject) => client.query(config, (error: Error | undefined, result) => (error ? reject(error) : resolve(result))));
}

interface ConnectionState {
  /** It has answered a statement: its start is behind it. */
  answered: boolean;
  /** It has errored or ended. */
  lost: boolean;
  /** A statement missed its deadline on it. */
  broken: Error | null;
}

/** Per connection, not per checkout: a pooled connection is handed out many times. */
const states = new WeakMap<object, ConnectionState>();

function stateOf(client: PoolClient | Client): ConnectionState {
  let state = states.get(client);
  if (!state) {
    const fresh: ConnectionState = { answered: false, lost: false, broken: null };
    client.on("error", () => (fresh.lost = true));
    client.on("end", () => (fresh.lost = true));
    states.set(client, (state = fresh));
  }
  return state;
}

/** One connection for `work`, always closed, each of its transactions taking `role`: for work outside a request's pool (Cron Triggers). */
export function withDb<T>(url: string, role: Acting, work: (db: Db) => Promise<T>): Promise<T> {
  return withClient(url, async (client) => work((await load()).drizzle({ client: forDrizzle(takingRole(client, role)) }) as unknown as Db));
}

/** `client` with its `query` replaced (drizzle's adapter reads other members of the client too). */
const asClient = <C extends object>(client: C, raw: RawClient): C =>
  new Proxy(client, { get: (target, key) => (key === "query" ? raw.query : Reflect.get(target, key)) });

/**
 * One raw connection for `work`, always closed: the migration runner's, and beneath `withDb`. Its
 * statements have the scheduled work's deadline, not a request's answer: a migration may take longer.
 */
export async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const { Client } = await loadDriver();
  const client = new Client(url);
  client.on("error", () => {});
  // Rare work, so its start is not pipelined: a database that cannot be reached or refuses the
  // session fails `connect`, and is called unreachable there (the request pools classify the first
  // statement instead).
  client.neonConfig.pipelineConnect = false;
  await within(client.connect(), DEADLINES.connectMs, "Connecting to the database").catch((error) => {
    void client.end().catch(() => {});
    return unreachable(error);
  });
  try {
    return await work(asClient(client, guarded(client, DEADLINES.scheduledStatementMs, false)));
  } finally {
    // A connection the server already ended has nothing to close (and the driver's `end` would wait for an end that came).
    const closing = client.end().catch(() => {});
    if (!stateOf(client).lost) await within(closing, DEADLINES.endMs, "Closing a database connection").catch(() => {});
  }
}

export interface RequestPool {
  connect: () => Promise<Connection>;
  /** Ends the pool; pass it to `waitUntil` once the response is sent. */
  end: () => Promise<void>;
}

/** A pool for one request or object (or one scheduled run: `statementMs` DEADLINES.scheduledStatementMs), whose transactions take `role`. */
export function openPool(connectionString: string, role: Acting, max: number, statementMs: number = DEADLINES.statementMs): RequestPool {
  let opened: Promise<{ pool: Pool; drizzle: Drizzle }> | null = null;
  let ended = false;
  const open = () =>
    (opened ??= load().then(({ driver, drizzle }) => {
      const pool = new driver.Pool({ connectionString, max, connectionTimeoutMillis: DEADLINES.connectMs });
      // After the pool ends the bridge closes its sockets; without a listener that surfaces as an
      // unhandled "Network connection lost" in workerd.
      pool.on("error", () => {});
      // Once per connection, not per checkout: a pooled connection is handed out many times.
      pool.on("connect", (client: PoolClient) => client.on("error", () => {}));
      return { pool, drizzle };
    }));
  return {
    connect: async () => {
      if (ended) unreachable(new Error("The pool has ended."));
      const { pool, drizzle } = await open().catch(unreachable);
      const client = await pool.connect().catch(unreachable);
      const raw = guarded(client, statementMs);
      await confine(raw, role, connectionString).catch((error: unknown) => {
        client.release(raw.broken() ?? undefined);
        throw error;
      });
      return {
        raw,
        role,
        db: drizzle({ client: forDrizzle(asClient(client, raw)) }) as unknown as Db,
        // A connection that missed a deadline is handed back broken: the pool closes it, never reuses it.
        release: (error) => client.release(error ?? raw.broken() ?? undefined),
      };
    },
    // A pool never connected has nothing to end; ending one waits for its connections to close, at most endMs.
    end: async () => {
      ended = true;
      if (opened) await within((await opened).pool.end(), DEADLINES.endMs, "Ending a database pool").catch(() => {});
    },
  };
}
