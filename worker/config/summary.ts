// The "what it decided" line logged on every start. It is built field by field from facts that
// are safe to print: never a secret, a key, a password, a connection string or a licence token.
import type { Config } from "./types";

const onOff = (on: boolean): "on" | "off" => (on ? "on" : "off");

export function describeConfig(config: Config): Record<string, unknown> {
  const licence = config.enterprise?.licence;
  const allowlist = config.signIn.allowlist;
  return {
    edition: config.edition,
    version: config.build.version,
    commit: config.build.commit,
    extensions: {
      operatorPortal: onOff(config.database.adminUrl !== null),
      codehostApp: onOff(config.codehost.app !== null),
      billing: onOff(config.billing.provider !== null),
      magicLink: onOff(config.mail.magicLink !== null),
      analyticsProxy: config.analytics.vendorRegion ?? "off",
      enterprise: onOff(config.enterprise !== null),
    },
    licence:
      licence === undefined || licence.state === "none"
        ? { state: licence?.state ?? "not read by the community edition", permissions: [] }
        : {
            state: licence.state,
            id: licence.token.payload.lid,
            expiresAt: new Date(licence.token.payload.exp * 1000).toISOString(),
            permissions: licence.token.payload.features,
            signature: "verified after start",
          },
    // No variable configures audit forwarding yet.
    auditForwarding: "off",
    signIn: allowlist === null ? "open" : allowlist.length === 0 ? "closed" : `allowlist of ${allowlist.length} logins`,
    selfServeSignup: onOff(config.signIn.selfServeSignup),
    installLink: onOff(config.codehost.installUrl !== null),
    operatorSetsPlan: onOff(config.billing.operatorSetsPlan),
    hostedRequiredPlan: config.billing.hostedRequiredPlan ?? "none",
    providerKeyVersions: config.providerKeys === null ? [] : [...config.providerKeys.keys.keys()],
    sealingVersion: config.providerKeys?.sealingVersion ?? null,
    partitionsKeptAhead: config.database.maintenanceUrl !== null,
    failureStore: onOff(config.failures.store),
  };
}
