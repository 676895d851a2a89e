// The enterprise features a licence can permit, and where each is mounted. Their paths are served in
// every licence state (spec: Editions); what lies beyond the licence gate is not built yet.
export const ENTERPRISE_FEATURES = {
  sso: { name: "single sign-on", path: "/sso" },
  scim: { name: "SCIM provisioning", path: "/scim/v2" },
} as const;

export type EnterpriseFeature = keyof typeof ENTERPRISE_FEATURES;

/** The published document's path on SVC_ENTERPRISE_BASE_URL. */
export const ENTERPRISE_DOCUMENT_PATH = "/.well-known/svc-enterprise";
