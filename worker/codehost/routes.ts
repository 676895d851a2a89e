// The code-host capability's HTTP surface: the App's webhooks.
import type { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { registerCodehostWebhooks } from "./webhook-routes";

export function registerCodehost(app: Hono<AppEnv>): void {
  registerCodehostWebhooks(app);
}
