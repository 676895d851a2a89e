// CLI tokens carry scopes named after permissions; a route names the one it needs.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/context";
import { Refusal } from "../http/refusal";
import type { Principal } from "./bearer";
import { loginCommandFor, type Permission } from "./permissions";

export function checkScope(principal: Principal, permission: Permission): void {
  if (!principal.scopes.includes(permission)) {
    throw new Refusal("forbidden", `This CLI token lacks the ${permission} scope; sign in again with \`${loginCommandFor(permission)}\`.`);
  }
}

export function requireScope(permission: Permission): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    checkScope(c.var.principal, permission);
    await next();
  };
}
