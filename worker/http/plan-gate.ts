// Which side of the required-plan gate a route is on (worker/billing/gate.ts checks it): declared
// first in a route's handlers, read from the request by the check and from `app.routes` by the walk
// (test/billing/gate.test.ts). Plumbing, so the route builders can declare it without the billing capability.
import type { MiddlewareHandler } from "hono";
import type { AppContext, AppEnv } from "./context";

export type GateSide = "gated" | "reachable";

const DECLARED_SIDE = Symbol("plan-gate side");

/**
 * A route's side of the gate, declared first in its handlers (`register` puts a `route`
 * declaration's `gate` there): the gate reads it from the request, the walk from `app.routes`.
 */
export function planGate(side: GateSide): MiddlewareHandler<AppEnv> {
  const declare: MiddlewareHandler<AppEnv> = async (c, next) => {
    c.set("planGate", side);
    await next();
  };
  return Object.assign(declare, { [DECLARED_SIDE]: side });
}

/** The side a handler of `app.routes` declares, if it is a `planGate`. */
export const declaredSide = (handler: unknown): GateSide | undefined => (handler as { [DECLARED_SIDE]?: GateSide })[DECLARED_SIDE];

/** Which side of the gate the hand-written route being served is on; a route that declares none is a bug. */
export function routeGateSide(c: AppContext): GateSide {
  const side = c.get("planGate");
  if (!side) throw new Error(`${c.req.method} ${c.req.routePath} declares no plan-gate side (planGate).`);
  return side;
}
