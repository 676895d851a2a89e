// Outbound product analytics: the control plane's own usage events, sent to the analytics vendor's
// capture API only when the region, the project key and the surrogate secret are all configured.
// The organization appears only as a keyed pseudonym; sends happen after the response
// (`waitUntil`) and their failures are swallowed: analytics never changes an answer.
import { assertNoTransaction } from "../../db/transaction";
import type { AnalyticsConfig } from "../config/types";

export type EventProperties = Record<string, string | number | boolean | null>;

export interface UsageEvent {
  event: string;
  orgId: string;
  properties: EventProperties;
}

const SEND_TIMEOUT_MS = 5_000;

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
}

/** HMAC-SHA256 of the organization id under the surrogate secret: stable per organization, not reversible without the secret. */
export async function pseudonym(surrogateSecret: string, orgId: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", hexBytes(surrogateSecret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`organization:${orgId}`)));
  return `org_${Array.from(mac, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

/** Sends one event; resolves either way. */
export async function capture(config: AnalyticsConfig, usage: UsageEvent): Promise<void> {
  const { vendorProjectKey, vendorApiBase, surrogateSecret } = config;
  if (!vendorProjectKey || !vendorApiBase || !surrogateSecret) return;
  assertNoTransaction("The analytics vendor");
  try {
    const response = await fetch(new URL("/i/v0/e/", vendorApiBase), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        api_key: vendorProjectKey,
        event: usage.event,
        distinct_id: await pseudonym(surrogateSecret, usage.orgId),
        // A pseudonym is no person: the vendor keeps no profile for it.
        properties: { ...usage.properties, $process_person_profile: false },
        timestamp: new Date().toISOString(),
      }),
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
    await response.body?.cancel();
  } catch {
    // Fire and forget: the vendor being away loses an event, nothing more.
  }
}

/** Fire-and-forget: the send outlives the response. */
export function sendAfterResponse(ctx: { waitUntil(promise: Promise<unknown>): void }, config: AnalyticsConfig, usage: UsageEvent): void {
  ctx.waitUntil(capture(config, usage));
}
