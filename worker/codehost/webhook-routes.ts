// POST /webhooks/codehost: the App's deliveries. Not in /openapi.json (the spec lists what it carries).
// The signature is checked over the raw bytes before anything is parsed.
import type { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { BODY_LIMITS, readBytes } from "../http/input";
import { Refusal } from "../http/refusal";
import { sha256Hex } from "../http/hash";
import { handleDelivery } from "./deliveries";
import { checkWebhookSignature, SIGNATURE_HEADER, type SignatureCheck } from "./webhook-signature";
import { DELIVERY_ID, EVENT_NAME } from "./webhook-schemas";
import { planGate } from "../http/plan-gate";

const UNSIGNED: Record<Exclude<SignatureCheck, "valid">, string> = {
  missing: "The delivery carries no X-Hub-Signature-256 header; unsigned deliveries are refused.",
  malformed: "The X-Hub-Signature-256 header is not `sha256=` followed by 64 hexadecimal digits.",
  mismatch: "The delivery's signature does not match its body under this service's webhook secret.",
};

export function registerCodehostWebhooks(app: Hono<AppEnv>): void {
  app.post("/webhooks/codehost", planGate("reachable"), async (c) => {
    const secret = c.var.config.codehost.app?.webhookSecret;
    if (!secret) throw new Refusal("webhook_not_configured", "This service has no code-host App configured, so it accepts no deliveries.");
    const body = await readBytes(c, BODY_LIMITS.webhook);
    const signature = await checkWebhookSignature(secret, c.req.header(SIGNATURE_HEADER), body);
    if (signature !== "valid") throw new Refusal("signature_invalid", UNSIGNED[signature]);

    const id = c.req.header("x-github-delivery") ?? "";
    const event = c.req.header("x-github-event") ?? "";
    if (!DELIVERY_ID.test(id) || !EVENT_NAME.test(event)) {
      throw new Refusal("invalid_request", "A delivery needs its X-GitHub-Delivery id and its X-GitHub-Event name.");
    }
    let payload: unknown;
    try {
      payload = JSON.parse(new TextDecoder().decode(body));
    } catch {
      throw new Refusal("invalid_json");
    }
    if (typeof payload !== "object" || payload === null) throw new Refusal("invalid_request", "A delivery's body must be a JSON object.");
    const handled = await handleDelivery(c.var.database().connect, { id, event, payload, bodySha256: await sha256Hex(body) });
    return c.json({ delivery: id, ...handled }, 200);
  });
}
