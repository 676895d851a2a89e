// The Worker's database access: a neon Pool per request (Workers forbids I/O objects shared across
// requests), always ended, and connections that speak both raw SQL and drizzle.
import { Client, Pool, neonConfig, type PoolClient } from "@neondatabase/serverless";
import { drizzle } from "drizzle-orm/neon-serverless";
import * as schema from "./schema";
import type { Connection } from "./transaction";

/**
 * The runtime's WebSocket, except that a send once the socket is closing or closed is dropped. The
 * driver coalesces writes into a zero-delay timer; when the other side closes the socket first (a
 * proxy that cannot reach PostgreSQL), that timer's send would throw an uncaught exception, outside
 * any request, instead of the connection failing as it already does.
 */
const SendSafeWebSocket =
  typeof WebSocket === "undefined"
    ? undefined
    : class extends WebSocket {
        override send(data: string | ArrayBuffer | ArrayBufferView<ArrayBuffer>): void {
          if (this.readyState === WebSocket.CLOSING || this.readyState === WebSocket.CLOSED) return;
          super.send(data);
        }
      };
if (SendSafeWebSocket) neonConfig.webSocketConstructor = SendSafeWebSocket;

/**
 * Points the driver at a local WebSocket-to-TCP bridge (`host:port`) instead of Neon's own proxy.
 * Only the local stack sets it; production leaves the driver's defaults.
 */
export function useBridge(bridge: string | null | undefined): void {
  if (!bridge) return;
  neonConfig.wsProxy = (host, port) => `${bridge}/v1?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}

/**
 * The database could not be reached: opening a connection failed (the cause is the driver's error).
 * A type, so that failures are classified without reading message text.
 */
export class DatabaseUnreachable extends Error {
  constructor(cause: unknown) {
    super("The database could not be reached.", { cause });
    this.name = "DatabaseUnreachable";
  }
}

const unreachable = (error: unknown): never => {
  throw new DatabaseUnreachable(error);
};

/** One connection for `work`, always closed: for work outside a request's pool (migrations, Cron Triggers). */
export async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client(url);
  client.on("error", () => {});
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
  const pool = new Pool({ connectionString, max, connectionTimeoutMillis: 5_000 });
  // After the pool ends the bridge closes its sockets; without a listener that surfaces as an
  // unhandled "Network connection lost" in workerd.
  pool.on("error", () => {});
  // Once per connection, not per checkout: a pooled connection is handed out many times.
  pool.on("connect", (client: PoolClient) => client.on("error", () => {}));
  return {
    connect: async () => {
      const client = await pool.connect().catch(unreachable);
      return { sql: client, db: drizzle({ client, schema }), release: (error) => client.release(error) };
    },
    end: () => pool.end().catch(() => {}),
  };
}
