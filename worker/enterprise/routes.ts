// The enterprise entry point's routes: single sign-on under /sso and SCIM under /scim/v2, mounted in
// every licence state behind the licence gate, and the published document saying what the licence
// permits and where each feature lives on SVC_ENTERPRISE_BASE_URL. Not one of them is in /openapi.json.
import type { Hono } from "hono";
import type { AppContext, AppEnv } from "../http/context";
import { serverFailure } from "../http/failure";
import { Refusal } from "../http/refusal";
import { ENTERPRISE_DOCUMENT_PATH, ENTERPRISE_FEATURES, type EnterpriseFeature, currentLicence, LicenceSignatureInvalid, requireLicence } from "./gate";
import { planGate } from "../http/plan-gate";

/** The community edition ignores enterprise variables: nothing enterprise is served there. */
function enterpriseOnly(c: AppContext) {
  const enterprise = c.var.config.enterprise;
  if (enterprise === null) throw new Refusal("not_found", "This is the community edition: it serves no enterprise feature.");
  return enterprise;
}

async function guarded(c: AppContext, work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof LicenceSignatureInvalid) return serverFailure("licence_invalid", c.var.requestId);
    throw error;
  }
}

function gatedFeature(app: Hono<AppEnv>, feature: EnterpriseFeature): void {
  const { path, name } = ENTERPRISE_FEATURES[feature];
  const handler = (c: AppContext) =>
    guarded(c, async () => {
      enterpriseOnly(c);
      await requireLicence(c.var.config, feature);
      // Beyond the gate: no connection can be configured yet, so every address is an unknown resource.
      throw new Refusal("not_found", `No ${name} connection is configured on this installation.`);
    });
  // The licence gates these (worker/enterprise/gate.ts), not the plan.
  app.all(path, planGate("reachable"), handler);
  app.all(`${path}/*`, planGate("reachable"), handler);
}

export function registerEnterprise(app: Hono<AppEnv>): void {
  app.get(ENTERPRISE_DOCUMENT_PATH, planGate("reachable"), (c) =>
    guarded(c, async () => {
      const { baseUrl } = enterpriseOnly(c);
      const licence = await currentLicence(c.var.config);
      const base = baseUrl.replace(/\/+$/, "");
      return c.json(
        {
          edition: "enterprise",
          baseUrl: base,
          licence: {
            state: licence.state,
            expiresAt: licence.expiresAt,
            graceEndsAt: licence.graceEndsAt,
            permissions: licence.permissions,
            // The grace period's warning, where an operator's monitoring can see it every day, not only at start.
            warning:
              licence.state === "grace"
                ? `The licence expired at ${licence.expiresAt}; it works until ${licence.graceEndsAt}. Install a renewed SVC_LICENSE_KEY.`
                : null,
          },
          features: Object.entries(ENTERPRISE_FEATURES).map(([feature, { name, path }]) => ({
            feature,
            name,
            url: base + path,
            permitted: licence.permissions.includes(feature),
          })),
        },
        200,
        { "cache-control": "no-store" },
      );
    }),
  );
  gatedFeature(app, "sso");
  gatedFeature(app, "scim");
}
