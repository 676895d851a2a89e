// The "what it decided" line logged on every start. It is built field by field from facts that
// are safe to print: never a secret, a key, a password, a connection string or a licence token.
import { licenceFacts } from "./licence";
import type { Config } from "./types";

const onOff = (on: boolean): "on" | "off" => (on ? "on" : "off");

/** `now` decides the licence state (valid, grace, expired); the licence signature is verified before this is logged. */
export function describeConfig(config: Config, now = Date.now()) {
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
    licence: config.enterprise === null ? { state: "not read by the community edition", permissions: [] } : licenceFacts(config.enterprise.licence, now),
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
