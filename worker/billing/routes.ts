// POST /webhooks/billing: the billing provider's deliveries. Not in /openapi.json (the spec lists what
// it carries). The signature header is judged before the body is read (a refused one costs no hashing),
// and the signature over the raw bytes before anything is parsed.
import type { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { BODY_LIMITS, readBytes, validate } from "../http/input";
import { Refusal } from "../http/refusal";
import { handleBillingEvent } from "./deliveries";
import { BillingEvent } from "./events";
import {
  BILLING_SIGNATURE_HEADER,
  matchesBillingSignature,
  MAX_SIGNATURES,
  readBillingSignature,
  TOLERANCE_SECONDS,
  type BillingSignatureCheck,
} from "./signature";
import { planGate } from "../http/plan-gate";

const UNSIGNED: Record<Exclude<BillingSignatureCheck, "valid">, string> = {
  missing: "The delivery carries no Stripe-Signature header; unsigned deliveries are refused.",
  malformed: "The Stripe-Signature header is not `t=<unix seconds>` with at least one `v1=<64 hexadecimal digits>`.",
  crowded: `The Stripe-Signature header carries more than ${MAX_SIGNATURES} v1 signatures; send at most ${MAX_SIGNATURES}.`,
  stale: `The delivery's signed timestamp is more than ${TOLERANCE_SECONDS / 60} minutes away from now.`,
  mismatch: "No v1 signature of the delivery matches its body under this service's billing webhook secret.",
};

export function registerBillingWebhooks(app: Hono<AppEnv>): void {
  app.post("/webhooks/billing", planGate("reachable"), async (c) => {
    const provider = c.var.config.billing.provider;
    if (!provider) throw new Refusal("webhook_not_configured", "Billing is off on this service, so it accepts no billing deliveries.");
    const signed = readBillingSignature(c.req.header(BILLING_SIGNATURE_HEADER), Math.floor(Date.now() / 1000));
    if (typeof signed === "string") throw new Refusal("signature_invalid", UNSIGNED[signed]);
    const body = await readBytes(c, BODY_LIMITS.billingWebhook);
    if (!(await matchesBillingSignature(provider.webhookSecret, signed, body))) throw new Refusal("signature_invalid", UNSIGNED.mismatch);
    let payload: unknown;
    try {
      payload = JSON.parse(new TextDecoder().decode(body));
    } catch {
      throw new Refusal("invalid_json");
    }
    const event = validate(BillingEvent, payload);
    const outcome = await handleBillingEvent(c.var.database().connect, provider, event);
    return c.json({ event: event.id, outcome }, 200);
  });
}
