// The required-plan gate (SVC_HOSTED_REQUIRED_PLAN=enterprise): until the billing provider grants the
// enterprise plan, an organization's work is refused with 402; signing in and out and the exits
// (billing, data export, deletion, account closing, listing and revoking sessions) stay reachable.
// Each procedure declares its side in its meta (`gate`, beside its permission) and each route with
// `planGate` (worker/http/plan-gate.ts; a `route` declaration's `gate`); test/billing/gate.test.ts walks what the router and
// the app declare, so a new one must say which side it is on.
import type { Config } from "../config/types";
import type { AppContext } from "../http/context";
import { routeGateSide, type GateSide } from "../http/plan-gate";
import { Refusal } from "../http/refusal";
import type { Plan } from "./plan";

/** The spec's 402 Refusal when the gate is on, the organization lacks the required plan and `side` is gated. */
export function checkPlanGate(config: Config, plan: string, side: GateSide): void {
  const required = config.billing.hostedRequiredPlan;
  if (!required || plan === required || side === "reachable") return;
  throw new Refusal(
    "plan_required",
    `This organization is on the ${plan as Plan} plan; this installation needs the ${required} plan. An owner can subscribe on the Billing page; billing, data export, deletion and sessions stay reachable.`,
  );
}

/** The gate on a hand-written route. */
export const gateRoute = (c: AppContext, plan: string): void => checkPlanGate(c.var.config, plan, routeGateSide(c));
