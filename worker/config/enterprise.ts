// Variables only the enterprise entry point reads: the single-sign-on sealing key, where single
// sign-on and SCIM publish themselves, and the licence.
import { readHttpUrl, readKey32, type EnvReader } from "./readers";
import { readLicence } from "./licence";
import type { EnterpriseConfig } from "./types";

/** Null only when an error was recorded (the config is then discarded). */
export function readEnterprise(r: EnvReader, appBaseUrl: string | null, now: number): EnterpriseConfig | null {
  const sso = r.text("SVC_EE_SSO_KEY");
  if (sso === undefined) r.refuseUnset("SVC_EE_SSO_KEY", " by the enterprise edition (it seals stored single-sign-on secrets)");
  const ssoKey = sso === undefined ? null : readKey32(r, "SVC_EE_SSO_KEY", sso);

  const baseUrl = readHttpUrl(r, "SVC_ENTERPRISE_BASE_URL") ?? appBaseUrl;
  if (r.text("SVC_ENTERPRISE_BASE_URL") === undefined && r.text("SVC_APP_BASE_URL") === undefined) {
    r.refuseUnset("SVC_ENTERPRISE_BASE_URL", " by the enterprise edition unless SVC_APP_BASE_URL is set");
  }

  const licence = readLicence(r, now);
  return ssoKey === null || baseUrl === null ? null : { ssoKey, baseUrl, licence };
}
