// /rpc/*: the tRPC fetch handler inside the app, after the shared plumbing (request id, config,
// per-request pool). Queries are GET with `?input=`, mutations POST with a JSON body.
// The router (every procedure and its schemas) is built on the first /rpc request, not at isolate
// start (bench/startup.ts).
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { readBytes } from "../http/input";
import { Refusal } from "../http/refusal";
import { rpcContext } from "./context";

export const RPC_PREFIX = "/rpc";

export function registerRpc(app: Hono<AppEnv>): void {
  app.all(`${RPC_PREFIX}/*`, async (c) => {
    const path = c.req.path.slice(RPC_PREFIX.length + 1);
    // A form post from another site carries a simple content type: only JSON bodies are taken.
    if (c.req.method === "POST" && !(c.req.header("content-type") ?? "").toLowerCase().startsWith("application/json")) {
      return c.json(
        { error: { message: "Mutations take a JSON body (content-type application/json).", code: -32600, data: { code: "BAD_REQUEST", httpStatus: 400, path } } },
        400,
      );
    }
    // Bounded like every body (413 before it is read whole); tRPC reads the bounded copy.
    let req = c.req.raw;
    if (c.req.method === "POST") {
      try {
        req = new Request(c.req.url, { method: "POST", headers: c.req.raw.headers, body: await readBytes(c) });
      } catch (refused) {
        if (!(refused instanceof Refusal)) throw refused;
        return c.json({ error: { message: refused.message, code: -32413, data: { code: "PAYLOAD_TOO_LARGE", httpStatus: 413, path } } }, 413);
      }
    }
    const { appRouter } = await import("./router");
    return fetchRequestHandler({
      endpoint: RPC_PREFIX,
      req,
      router: appRouter,
      createContext: () => rpcContext(c),
    });
  });
}
