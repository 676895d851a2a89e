// Calls to the billing provider's REST API (SVC_BILLING_API_BASE; Stripe's: form-encoded bodies,
// the secret key as a bearer), bounded in time. An answer of any status goes back to the caller;
// only a provider that cannot be reached throws.
import { assertNoTransaction } from "../../db/transaction";
import type { BillingConfig, BillingProvider } from "../config/types";

export class BillingUnreachable extends Error {
  override readonly name = "BillingUnreachable";
}

export interface BillingAnswer {
  status: number;
  body: Record<string, unknown> | null;
}

const TIMEOUT_MS = 10_000;

export async function callBilling(config: BillingConfig, provider: BillingProvider, path: string, form: Record<string, string>): Promise<BillingAnswer> {
  assertNoTransaction("The billing provider's API");
  try {
    const response = await fetch(config.apiBase.replace(/\/+$/, "") + path, {
      method: "POST",
      headers: { authorization: `Bearer ${provider.secretKey}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    return { status: response.status, body };
  } catch {
    throw new BillingUnreachable("The billing provider could not be reached.");
  }
}

/** The provider's own sentence for a refusal, shortened, or its status. */
export function describeBillingAnswer(answer: BillingAnswer): string {
  const message = (answer.body?.error as { message?: unknown } | undefined)?.message;
  return typeof message === "string" && message !== "" ? `HTTP ${answer.status}: ${message.slice(0, 200)}` : `HTTP ${answer.status}`;
}

/** What a person is told when billing is off. */
export const BILLING_OFF =
  "Billing is off on this installation: the operator sets SVC_BILLING_SECRET_KEY, SVC_BILLING_WEBHOOK_SECRET and SVC_BILLING_PRICE_TEAM to turn it on.";
