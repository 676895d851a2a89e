// Per-request services: the request id, the configuration and a lazily opened database pool that is
// always ended once the response is decided (Workers forbids I/O objects across requests).
import type { MiddlewareHandler } from "hono";
import { configFor } from "../config/for-env";
import { openPool, useBridge, type RequestPool } from "../../db/neon";
import type { AppEnv } from "./context";

export const REQUEST_ID_HEADER = "x-request-id";

export const services: MiddlewareHandler<AppEnv> = async (c, next) => {
  const requestId = crypto.randomUUID();
  c.set("requestId", requestId);
  c.header(REQUEST_ID_HEADER, requestId);
  const config = configFor(c.env);
  c.set("config", config);
  useBridge(config.database.wsProxy);
  let pool: RequestPool | undefined;
  c.set("database", () => (pool ??= openPool(config.database.url, config.database.poolMax)));
  try {
    await next();
  } finally {
    if (pool) c.executionCtx.waitUntil(pool.end());
  }
};
