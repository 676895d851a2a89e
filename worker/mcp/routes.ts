// The model-context-protocol capability: /mcp and its authorization server. None of these routes is
// in /openapi.json (the spec lists what it carries); the README documents them.
import type { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { MCP_PATH, methodNotAllowed, serveMcp } from "./endpoint";
import { registerOAuth } from "./oauth-routes";
import type { LoadTools } from "./tool-set";
import { planGate } from "../http/plan-gate";

/** /mcp and its authorization server, offering the tools `loadTools` gives (the composition root's: worker/app.ts). */
export function registerMcp(app: Hono<AppEnv>, loadTools: LoadTools): void {
  // Each tool is its console procedure, gated as that procedure is.
  app.post(MCP_PATH, planGate("reachable"), serveMcp(loadTools));
  app.get(MCP_PATH, planGate("reachable"), methodNotAllowed);
  app.delete(MCP_PATH, planGate("reachable"), methodNotAllowed);
  registerOAuth(app, loadTools);
}
