// Who decides an organization's plan: the billing provider, or the operator (never both).
import { listNames, namesAre, readFlag, readGroup, readHttpUrl, type EnvReader } from "./readers";
import type { BillingConfig, BillingProvider } from "./types";
import type { VariableName } from "./variables";

const BILLING_ON = ["SVC_BILLING_SECRET_KEY", "SVC_BILLING_WEBHOOK_SECRET", "SVC_BILLING_PRICE_TEAM"] as const;

/**
 * Variables that hand plan decisions to the billing provider. SVC_BILLING_API_BASE is left out:
 * an address alone decides nothing, and test setups point it at a fake provider everywhere.
 */
const PLAN_FROM_BILLING: readonly VariableName[] = [...BILLING_ON, "SVC_BILLING_PRICE_ENTERPRISE", "SVC_HOSTED_REQUIRED_PLAN"];

export function readBilling(r: EnvReader): BillingConfig {
  const provider = readProvider(r);
  const operatorSetsPlan = readFlag(r, "SVC_OPERATOR_SETS_PLAN");
  const conflicting = PLAN_FROM_BILLING.filter((name) => r.text(name) !== undefined);
  if (operatorSetsPlan && conflicting.length > 0) {
    r.refuse(
      "SVC_OPERATOR_SETS_PLAN",
      `SVC_OPERATOR_SETS_PLAN cannot be on together with ${listNames(conflicting)}: the plan comes either from the operator or from billing.`,
    );
  }
  return {
    provider,
    apiBase: readHttpUrl(r, "SVC_BILLING_API_BASE") ?? "https://api.stripe.com",
    hostedRequiredPlan: readHostedRequiredPlan(r, provider),
    operatorSetsPlan,
  };
}

function readProvider(r: EnvReader): BillingProvider | null {
  const { values, missing } = readGroup(r, BILLING_ON);
  if (missing.length > 0) r.warn(`Billing is off: ${namesAre(missing)} not set.`);
  if (values === null) return null;
  return {
    secretKey: values.SVC_BILLING_SECRET_KEY,
    webhookSecret: values.SVC_BILLING_WEBHOOK_SECRET,
    teamPrice: values.SVC_BILLING_PRICE_TEAM,
    enterprisePrice: r.text("SVC_BILLING_PRICE_ENTERPRISE") ?? null,
  };
}

function readHostedRequiredPlan(r: EnvReader, provider: BillingProvider | null): "enterprise" | null {
  const plan = r.text("SVC_HOSTED_REQUIRED_PLAN");
  if (plan === undefined) return null;
  if (plan !== "enterprise") {
    r.refuse("SVC_HOSTED_REQUIRED_PLAN", "SVC_HOSTED_REQUIRED_PLAN accepts only the value enterprise.");
  } else if (provider === null) {
    r.refuse("SVC_HOSTED_REQUIRED_PLAN", `SVC_HOSTED_REQUIRED_PLAN needs billing on: set ${listNames(BILLING_ON)}.`);
  } else if (provider.enterprisePrice === null) {
    r.refuseUnset("SVC_BILLING_PRICE_ENTERPRISE", " when SVC_HOSTED_REQUIRED_PLAN is enterprise (the required plan needs a price)");
  } else {
    return plan;
  }
  return null;
}
