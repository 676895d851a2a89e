// The Worker's database access: a neon Pool per request (Workers forbids I/O objects shared across
// requests), always ended; a connection is drizzle, plus the raw client the pipeline sends its text
// through (db/pipeline.ts).
// The driver (and drizzle's adapter for it) loads on the first connection, not at isolate start: its
// module set-up is the largest part of the start's script time (bench/startup.ts), and requests that
// never reach the database (health, metrics, the console's pages) do not pay it.
import type { Client, Pool, PoolClient } from "@neondatabase/serverless";
import { forDrizzle, type RawClient } from "./pipeline";
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

/**
 * The driver pipelines its start (startup, password and first statement in one write), so a server
 * that cannot be reached or refuses the session fails the connection's first statement, not its
 * connect: that failure is the database being unreachable, unless PostgreSQL refused the statement.
 */
function firstAnswerClassified(client: PoolClient): RawClient {
  return {
    query: (async (text: string, params?: unknown[]) => {
      if (answered.has(client)) return client.query(text, params);
      const result = await client.query(text, params).catch((error: { code?: unknown }) => {
        const code = typeof error?.code === "string" ? error.code : "";
        if (!/^[0-9A-Z]{5}$/.test(code) || SESSION_REFUSED.test(code)) unreachable(error);
        throw error;
      });
      answered.add(client);
      return result;
    }) as RawClient["query"],
  };
}

/** Connections that have answered a statement: their start is behind them. */
const answered = new WeakSet<PoolClient>();

/** One connection for `work`, always closed: for work outside a request's pool (Cron Triggers). */
export function withDb<T>(url: string, work: (db: Db) => Promise<T>): Promise<T> {
  return withClient(url, async (client) => work((await load()).drizzle({ client: forDrizzle(client) }) as unknown as Db));
}

/** One raw connection for `work`, always closed: the migration runner's. */
export async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const { Client } = await loadDriver();
  const client = new Client(url);
  client.on("error", () => {});
  // Rare work, so its start is not pipelined: a database that cannot be reached or refuses the
  // session fails `connect`, and is called unreachable there (the request pools classify the first
  // statement instead).
  client.neonConfig.pipelineConnect = false;
  await client.connect().catch(unreachable);
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

export interface RequestPool {
  connect: () => Promise<Connection>;
  /** Ends the pool; pass it to `waitUntil` once the response is sent. */
  end: () => Promise<void>;
}

export function openPool(connectionString: string, max: number): RequestPool {
  let opened: Promise<{ pool: Pool; drizzle: Drizzle }> | null = null;
  let ended = false;
  const open = () =>
    (opened ??= load().then(({ driver, drizzle }) => {
      const pool = new driver.Pool({ connectionString, max, connectionTimeoutMillis: 5_000 });
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
      const raw = firstAnswerClassified(client);
      return { raw, db: drizzle({ client: forDrizzle(client) }) as unknown as Db, release: (error) => client.release(error) };
    },
    // A pool never connected has nothing to end.
    end: async () => {
      ended = true;
      if (opened) await (await opened).pool.end().catch(() => {});
    },
  };
}
