// `npm start` with no billing variable (nor SVC_OPERATOR_SETS_PLAN) in the shell: the fake billing
// provider of the tests stands in for the provider, billing is on against it, and completing a
// checkout on its page delivers signed events to the local Worker, so checkout can be tried locally.
import { startFakeBilling } from "../fakes/billing/server";

export const FAKE_BILLING_PORT = 54332;
const SHELL_DECIDES = [
  "SVC_BILLING_SECRET_KEY",
  "SVC_BILLING_WEBHOOK_SECRET",
  "SVC_BILLING_PRICE_TEAM",
  "SVC_BILLING_PRICE_ENTERPRISE",
  "SVC_BILLING_API_BASE",
  "SVC_OPERATOR_SETS_PLAN",
];

export async function startLocalFakeBilling(port: string) {
  if (SHELL_DECIDES.some((name) => process.env[name] !== undefined)) return null;
  const webhookSecret = `whsec_local_${crypto.randomUUID().replaceAll("-", "")}`;
  const fake = await startFakeBilling({ port: FAKE_BILLING_PORT, webhookTarget: `http://127.0.0.1:${port}/webhooks/billing`, webhookSecret });
  return {
    variables: {
      SVC_BILLING_API_BASE: fake.url,
      SVC_BILLING_SECRET_KEY: "sk_test_local",
      SVC_BILLING_WEBHOOK_SECRET: webhookSecret,
      SVC_BILLING_PRICE_TEAM: "price_team_local",
      SVC_BILLING_PRICE_ENTERPRISE: "price_enterprise_local",
    },
    close: fake.close,
    banner: `fake billing   ${fake.url}  (README: "Billing and plans"; checkout pages at /_fake/checkout/<id>)`,
  };
}
