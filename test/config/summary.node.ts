import { describe, expect, it } from "vitest";
import { formatConfigErrors, parseConfig } from "../../worker/config/parse";
import { describeConfig } from "../../worker/config/summary";
import { baseEnv, envWith, fullEnv, NOW, SECRET_NAMES } from "./fixtures";

function summary(env: Readonly<Record<string, string>>, edition: "enterprise" | "community" = "enterprise") {
  const result = parseConfig(env, { edition, now: NOW });
  if (!result.ok) throw new Error(formatConfigErrors(result.errors));
  return describeConfig(result.config, NOW);
}

describe("describeConfig", () => {
  it("never contains a secret, key, password or connection string", () => {
    const text = JSON.stringify(summary(fullEnv));
    for (const name of SECRET_NAMES) {
      const value = fullEnv[name]!;
      expect(text, name).not.toContain(value);
      // Also no recognizable piece of it (a password inside a URL, one PEM line, one key of a list).
      for (const piece of value.split(/[\n,=:@/]/).filter((part) => part.length >= 12)) expect(text, name).not.toContain(piece);
    }
  });

  it("says what the full environment mounts and decides", () => {
    expect(summary(fullEnv)).toEqual({
      edition: "enterprise",
      version: "1.4.2",
      commit: "abc1234",
      extensions: { operatorPortal: "on", codehostApp: "on", billing: "on", magicLink: "on", analyticsProxy: "eu", enterprise: "on" },
      licence: {
        state: "valid",
        id: "lic-001",
        expiresAt: "2040-01-01T00:00:00.000Z",
        graceEndsAt: "2040-01-01T00:00:00.000Z",
        features: ["sso", "scim"],
        permissions: ["sso", "scim"],
      },
      auditForwarding: "off",
      signIn: "allowlist of 3 logins",
      selfServeSignup: "on",
      installLink: "on",
      operatorSetsPlan: "off",
      hostedRequiredPlan: "enterprise",
      providerKeyVersions: ["v1", "v2"],
      sealingVersion: "v2",
      partitionsKeptAhead: true,
      failureStore: "off",
    });
  });

  it("says what the base environment leaves off", () => {
    expect(summary(baseEnv)).toMatchObject({
      extensions: { operatorPortal: "off", codehostApp: "off", billing: "off", magicLink: "off", analyticsProxy: "off", enterprise: "on" },
      licence: { state: "none", permissions: [] },
      auditForwarding: "off",
      signIn: "open",
      selfServeSignup: "off",
      installLink: "off",
      providerKeyVersions: [],
      sealingVersion: null,
    });
  });

  it("tells a closed sign-in from an open one", () => {
    expect(summary(envWith({ SVC_SIGNIN_ALLOWLIST: "" })).signIn).toBe("closed");
  });

  it("reports the community edition without enterprise routes or licence", () => {
    expect(summary(baseEnv, "community")).toMatchObject({
      edition: "community",
      extensions: { enterprise: "off" },
      licence: { state: "not read by the community edition", permissions: [] },
    });
  });
});
