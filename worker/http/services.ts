// Per-request services: the request id (on every answer), the configuration and a lazily opened
// database pool, ended once the response body is sent or cancelled (Workers forbids I/O objects
// across requests; a streamed body, such as a tRPC batch streamed as JSON lines, still runs queries
// after the handler has returned), or at once when the body was built whole.
import type { MiddlewareHandler } from "hono";
import { configFor } from "../config/for-env";
import { answeringWithin, DEADLINES } from "../../db/deadline";
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
  c.set("database", () => (pool ??= openPool(config.database.url, "svc_app", config.database.poolMax)));
  const endPool = async () => pool?.end();
  try {
    // The answer is due within DEADLINES.answerMs: every statement and object call waits at most what is
    // left of it. A streamed body's statements, run after the head is answered, have their own only.
    await answeringWithin(DEADLINES.answerMs, async (answered) => {
      try {
        await next();
      } finally {
        answered();
      }
    });
  } catch (error) {
    c.executionCtx.waitUntil(endPool());
    throw error;
  }
  // A HEAD's body is dropped by the router after this (hono answers HEAD as GET without a body): nothing will read it.
  // A body built whole (a route's reply) runs no query once returned: the pool ends now, and the body is
  // not piped through a stream of ours to learn when it was sent (the engines' claims and heartbeats:
  // bench/README.md). Any other body may still use the pool while it streams.
  if (c.req.method === "HEAD" || c.get("wholeBody")) c.executionCtx.waitUntil(endPool());
  else c.res = afterBody(c.res, endPool, c.executionCtx);
  // Handlers that return a Response of their own (/rpc's tRPC adapter) carry it too.
  c.header(REQUEST_ID_HEADER, requestId);
};

/** The response, with `done` run (and waited for) once its body has been sent or cancelled. */
function afterBody(response: Response, done: () => Promise<void>, ctx: Pick<ExecutionContext, "waitUntil">): Response {
  if (!response.body) {
    ctx.waitUntil(done());
    return response;
  }
  const length = response.headers.get("content-length");
  const { readable, writable } = length ? new FixedLengthStream(Number(length)) : new TransformStream<Uint8Array, Uint8Array>();
  // pipeTo settles when the body is fully sent, and rejects when the reader cancels or fails.
  ctx.waitUntil(
    response.body
      .pipeTo(writable)
      .catch(() => {})
      .then(done),
  );
  return new Response(readable, response);
}
