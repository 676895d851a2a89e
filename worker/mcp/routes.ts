// The model-context-protocol capability: /mcp and its authorization server. None of these routes is
// in /openapi.json (the spec lists what it carries); the README documents them.
import type { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { MCP_PATH, methodNotAllowed, serveMcp } from "./endpoint";
import { registerOAuth } from "./oauth-routes";
import { planGate } from "../http/plan-gate";

export function registerMcp(app: Hono<AppEnv>): void {
  // Each tool is its console procedure, gated as that procedure is.
  app.post(MCP_PATH, planGate("reachable"), serveMcp);
  app.get(MCP_PATH, planGate("reachable"), methodNotAllowed);
  app.delete(MCP_PATH, planGate("reachable"), methodNotAllowed);
  registerOAuth(app);
}
