// First-party analytics: what is recorded, who reads it, and the vendor proxy under `/px`.
import { listNames, readHttpUrl, readWholeNumber, type EnvReader } from "./readers";
import type { AnalyticsConfig } from "./types";

const HEX_32_BYTES = /^[0-9a-fA-F]{64}$/;
const REGIONS = ["us", "eu"] as const;
/** The vendor's capture hosts: a closed set, one per region. */
const CAPTURE_HOSTS: Record<(typeof REGIONS)[number], string> = { us: "https://us.i.posthog.com", eu: "https://eu.i.posthog.com" };

export function readAnalytics(r: EnvReader): AnalyticsConfig {
  const surrogateSecret = readSurrogateSecret(r);
  const vendorRegion = readRegion(r);
  const apiBase = readHttpUrl(r, "SVC_ANALYTICS_VENDOR_API_BASE");
  return {
    surrogateSecret,
    operatorOrg: r.text("SVC_ANALYTICS_OPERATOR_ORG") ?? null,
    retentionDays: readWholeNumber(r, "SVC_ANALYTICS_RETENTION_DAYS", 1),
    vendorRegion,
    vendorProjectKey: readProjectKey(r),
    vendorApiBase: vendorRegion === null ? null : (apiBase ?? CAPTURE_HOSTS[vendorRegion]),
  };
}

function readSurrogateSecret(r: EnvReader): string | null {
  const value = r.text("SVC_ANALYTICS_SURROGATE_SECRET");
  if (value === undefined || HEX_32_BYTES.test(value)) return value?.toLowerCase() ?? null;
  r.refuse("SVC_ANALYTICS_SURROGATE_SECRET", "SVC_ANALYTICS_SURROGATE_SECRET must be exactly 64 hex characters (32 bytes).");
  return null;
}

function readRegion(r: EnvReader): AnalyticsConfig["vendorRegion"] {
  const value = r.text("SVC_ANALYTICS_VENDOR_REGION");
  if (value === undefined) return null;
  const region = REGIONS.find((known) => known === value);
  if (region === undefined) r.refuse("SVC_ANALYTICS_VENDOR_REGION", "SVC_ANALYTICS_VENDOR_REGION must be us or eu.");
  return region ?? null;
}

/** Reporting own usage needs somewhere to send it (region) and a way to pseudonymize it (secret). */
function readProjectKey(r: EnvReader): string | null {
  const key = r.text("SVC_ANALYTICS_VENDOR_PROJECT_KEY");
  if (key === undefined) return null;
  const needed = ["SVC_ANALYTICS_VENDOR_REGION", "SVC_ANALYTICS_SURROGATE_SECRET"] as const;
  const missing = needed.filter((name) => r.text(name) === undefined);
  if (missing.length === 0) return key;
  r.warn(`SVC_ANALYTICS_VENDOR_PROJECT_KEY is set without ${listNames(missing)}: no hosted usage is sent.`);
  return null;
}
