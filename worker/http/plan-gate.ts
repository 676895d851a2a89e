// The required-plan gate (SVC_HOSTED_REQUIRED_PLAN=enterprise): until the billing provider grants the
// enterprise plan, an organization's work is refused with 402; signing in and out and the exits
// (billing, data export, deletion, account closing, listing and revoking sessions) stay reachable.
// Each procedure declares its side in its meta (`gate`, beside its permission) and each route with
// `planGate` (a `route` declaration's `gate`): declared first in a route's handlers, read from the
// request by the check and from `app.routes` by the walk (test/billing/gate.test.ts), so a new one must
// say which side it is on. Plumbing: the route builders and every capability that authorizes use it.
import type { MiddlewareHandler } from "hono";
import type { Plan } from "../../db/enums";
import type { Config } from "../config/types";
import type { AppContext, AppEnv, GateSide } from "./context";
import { Refusal } from "./refusal";

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

/** The plan work on `side` of the gate requires, or null when any plan may do it (the gate off, or a reachable side). */
export const requiredPlan = (config: Config, side: GateSide): Plan | null => (side === "reachable" ? null : (config.billing.hostedRequiredPlan ?? null));

/** The spec's 402 Refusal when the gate is on, the organization lacks the required plan and `side` is gated. */
export const checkPlanGate = (config: Config, plan: string, side: GateSide): void => checkRequiredPlan(plan, requiredPlan(config, side));

/** The spec's 402 Refusal when `required` names a plan the organization (on `plan`) is not on. */
export function checkRequiredPlan(plan: string, required: Plan | null): void {
  if (!required || plan === required) return;
  throw new Refusal(
    "plan_required",
    `This organization is on the ${plan as Plan} plan; this installation needs the ${required} plan. An owner can subscribe on the Billing page; billing, data export, deletion and sessions stay reachable.`,
  );
}

/** The gate on a hand-written route. */
export const gateRoute = (c: AppContext, plan: string): void => checkPlanGate(c.var.config, plan, routeGateSide(c));
