// The model-context-protocol capability: /mcp and its authorization server. None of these routes is
// in /openapi.json (the spec lists what it carries); the README documents them.
import type { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { MCP_PATH, methodNotAllowed, serveMcp } from "./endpoint";
import { registerOAuth } from "./oauth-routes";

export function registerMcp(app: Hono<AppEnv>): void {
  app.post(MCP_PATH, serveMcp);
  app.get(MCP_PATH, methodNotAllowed);
  app.delete(MCP_PATH, methodNotAllowed);
  registerOAuth(app);
}
