// /rpc/*: the tRPC fetch handler inside the app, after the shared plumbing (request id, config,
// per-request pool). Queries are GET with `?input=`, mutations POST with a JSON body.
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { rpcContext } from "./context";
import { appRouter } from "./router";

export const RPC_PREFIX = "/rpc";

export function registerRpc(app: Hono<AppEnv>): void {
  app.all(`${RPC_PREFIX}/*`, async (c) => {
    // A form post from another site carries a simple content type: only JSON bodies are taken.
    if (c.req.method === "POST" && !(c.req.header("content-type") ?? "").toLowerCase().startsWith("application/json")) {
      const path = c.req.path.slice(RPC_PREFIX.length + 1);
      return c.json(
        { error: { message: "Mutations take a JSON body (content-type application/json).", code: -32600, data: { code: "BAD_REQUEST", httpStatus: 400, path } } },
        400,
      );
    }
    return fetchRequestHandler({
      endpoint: RPC_PREFIX,
      req: c.req.raw,
      router: appRouter,
      createContext: () => rpcContext(c),
    });
  });
}
