// The code-host capability's HTTP surface: the identity exchange, repository claims, App webhooks.
import type { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { registerBindings } from "../repository-claims/routes";
import { registerIdentityExchange } from "../repository-claims/exchange-routes";
import { registerCodehostWebhooks } from "./webhook-routes";

export function registerCodehost(app: Hono<AppEnv>): void {
  registerIdentityExchange(app);
  registerBindings(app);
  registerCodehostWebhooks(app);
}
