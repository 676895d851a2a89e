// The licence gate in front of every enterprise route: 402 naming the feature and the licence state
// unless the licence (signature verified, state valid or grace) lists the feature.
import { licenceFacts, type LicenceFacts } from "../config/licence";
import { licenceSignatureProblem } from "../config/licence-signature";
import type { Config, LicenceState } from "../config/types";
import { Refusal } from "../http/refusal";

const WHY: Record<Exclude<LicenceState, "valid" | "grace">, string> = {
  none: "no licence is installed (SVC_LICENSE_KEY is unset)",
  expired: "the licence has expired and its grace period has ended",
  wrong_org: "the licence was issued to another organization than SVC_ORG",
  revoked: "the licence is revoked (SVC_LICENSE_REVOKED)",
};

export class LicenceRequired extends Refusal {
  override readonly name = "LicenceRequired";
  constructor(
    readonly feature: EnterpriseFeature,
    readonly licence: LicenceState,
  ) {
    const why = licence === "valid" || licence === "grace" ? "the licence does not list it" : WHY[licence];
    super("licence_required", `The enterprise feature "${feature}" (${ENTERPRISE_FEATURES[feature].name}) needs a licence that permits it: ${why}.`);
  }

  override body(): { error: string; feature: EnterpriseFeature; licence: LicenceState } {
    return { error: this.message, feature: this.feature, licence: this.licence };
  }
}

/** Thrown when the licence's signature does not verify at request time (the isolate start refuses it first). */
export class LicenceSignatureInvalid extends Error {
  override readonly name = "LicenceSignatureInvalid";
}

/** The licence as of now, its signature verified. */
export async function currentLicence(config: Config, now = Date.now()): Promise<LicenceFacts> {
  if ((await licenceSignatureProblem(config)) !== null) throw new LicenceSignatureInvalid();
  return licenceFacts(config.enterprise?.licence, now);
}

export async function requireLicence(config: Config, feature: EnterpriseFeature): Promise<LicenceFacts> {
  const licence = await currentLicence(config);
  if (!licence.permissions.includes(feature)) throw new LicenceRequired(feature, licence.state);
  return licence;
}

// The enterprise features a licence can permit, and where each is mounted. Their paths are served in
// every licence state (spec: Editions); what lies beyond the licence gate is not built yet.
export const ENTERPRISE_FEATURES = {
  sso: { name: "single sign-on", path: "/sso" },
  scim: { name: "SCIM provisioning", path: "/scim/v2" },
} as const;

export type EnterpriseFeature = keyof typeof ENTERPRISE_FEATURES;

/** The published document's path on SVC_ENTERPRISE_BASE_URL. */
export const ENTERPRISE_DOCUMENT_PATH = "/.well-known/svc-enterprise";
