// The Worker's database access: a neon Pool per request (Workers forbids I/O objects shared across
// requests), always ended, and connections that speak both raw SQL and drizzle.
import { Pool, neonConfig, type PoolClient } from "@neondatabase/serverless";
import { drizzle } from "drizzle-orm/neon-serverless";
import * as schema from "./schema";
import type { Connection } from "./transaction";

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

export interface RequestPool {
  connect: () => Promise<Connection>;
  /** Ends the pool; pass it to `waitUntil` once the response is decided. */
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
      const client = await pool.connect();
      return { sql: client, db: drizzle({ client, schema }), release: (error) => client.release(error) };
    },
    end: () => pool.end().catch(() => {}),
  };
}
