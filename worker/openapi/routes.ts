import type { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { rpcRouteDocs } from "../rpc/openapi";
import { openApiDocument } from "./document";

export function registerOpenApi(app: Hono<AppEnv>): void {
  app.get("/openapi.json", (c) => c.json(openApiDocument(c.var.config.server.appBaseUrl ?? new URL(c.req.url).origin, rpcRouteDocs())));
}
