// The enterprise licence end to end: licences minted with `svc licence`'s own functions (a real
// Ed25519 key pair, jose), installed through the Worker's variables, observed through the enterprise
// routes (402 naming the feature and the state), the published document, the start-up line and the
// configuration check's exit status.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { configCheck } from "../../cli/commands/config-check";
import { licenceKeyPair, mintLicence, type LicenceClaims } from "../../cli/licence-mint";
import { LicenceRefusal, startWith } from "../../worker/config/for-env";
import { captureLogs } from "../support/logs";
import { call, callWith } from "../support/http";
import { statusAndCode } from "../support/refusals";

const DAY = 86_400;
const nowSeconds = () => Math.floor(Date.now() / 1000);

let issuer: { privateKeyPem: string; publicKey: string };
let stranger: { privateKeyPem: string; publicKey: string };

beforeAll(async () => {
  issuer = await licenceKeyPair();
  stranger = await licenceKeyPair();
});

const claims = (changes: Partial<LicenceClaims> = {}): LicenceClaims => ({
  id: "lic-test-1",
  org: "acme",
  expiresAt: nowSeconds() + 30 * DAY,
  graceSeconds: 14 * DAY,
  features: ["sso", "scim"],
  ...changes,
});

/** The variables installing a licence minted with `changes`, trusted under kid k1. */
async function installed(changes: Partial<LicenceClaims> = {}, extra: Record<string, string> = {}) {
  return {
    SVC_LICENSE_KEY: await mintLicence(issuer.privateKeyPem, "k1", claims(changes)),
    SVC_ORG: "acme",
    SVC_LICENSE_PUBLIC_KEYS: `k0=${stranger.publicKey},k1=${issuer.publicKey}`,
    ...extra,
  };
}

/** What the Worker's environment holds, as `config check` would read it from a shell. */
const shell = (overrides: Record<string, string>): Record<string, string> =>
  Object.fromEntries(
    Object.entries({ ...(env as unknown as Record<string, unknown>), ...overrides }).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );

async function refusal(response: Response) {
  expect(response.headers.get("x-svc-error-code")).toBe("licence_required");
  return (await response.json()) as { error: string; feature: string; licence: string };
}

describe("enterprise routes with each licence state", () => {
  it("none: every enterprise route is mounted and answers 402 naming the feature and the state", async () => {
    for (const [path, feature] of [
      ["/sso/acme/login", "sso"],
      ["/sso", "sso"],
      ["/scim/v2/Users", "scim"],
    ] as const) {
      for (const method of ["GET", "POST"]) {
        const response = await call(path, { method });
        expect(response.status).toBe(402);
        const body = await refusal(response);
        expect(body).toMatchObject({ feature, licence: "none" });
        expect(body.error).toContain(feature);
        expect(body.error).toContain("SVC_LICENSE_KEY is unset");
      }
    }
  });

  it("valid: a listed feature passes the gate (404: no connection configured yet); an unlisted one is 402", async () => {
    const vars = await installed({ features: ["sso"] });
    const sso = await callWith(vars, "/sso/acme/login");
    expect(statusAndCode(sso)).toEqual([404, "not_found"]);
    expect(await sso.json()).toEqual({ error: "No single sign-on connection is configured on this installation." });
    const scim = await callWith(vars, "/scim/v2/Users");
    expect(scim.status).toBe(402);
    expect(await refusal(scim)).toMatchObject({ feature: "scim", licence: "valid" });
  });

  it("grace: expired but within its grace period, it still works", async () => {
    const vars = await installed({ expiresAt: nowSeconds() - DAY, graceSeconds: 7 * DAY });
    expect(statusAndCode(await callWith(vars, "/scim/v2/Users"))).toEqual([404, "not_found"]);
    const document = (await (await callWith(vars, "/.well-known/svc-enterprise")).json()) as { licence: { state: string; permissions: string[] } };
    expect(document.licence).toMatchObject({
      state: "grace",
      permissions: ["sso", "scim"],
      warning: expect.stringMatching(/^The licence expired at .* Install a renewed SVC_LICENSE_KEY\.$/),
    });
  });

  it("expired: past the grace period, 402 as expired", async () => {
    const vars = await installed({ expiresAt: nowSeconds() - 8 * DAY, graceSeconds: 7 * DAY });
    const response = await callWith(vars, "/sso/acme/login");
    expect(response.status).toBe(402);
    expect(await refusal(response)).toMatchObject({ feature: "sso", licence: "expired" });
  });

  it("wrong_org: a licence for another organization starts and answers 402 as wrong_org", async () => {
    const vars = await installed({ org: "globex" });
    const started = await captureLogs(async () => {
      await startWith(shell(vars));
      expect(await configCheck(["check"], shell(vars))).toBe(0);
    });
    expect(started.event("config.decided").licence).toMatchObject({ state: "wrong_org", permissions: [] });
    // The rest of the service serves as usual.
    expect((await callWith(vars, "/health")).status).toBe(200);
    const response = await callWith(vars, "/scim/v2/Groups", { method: "POST", json: {} });
    expect(response.status).toBe(402);
    expect(await refusal(response)).toMatchObject({ feature: "scim", licence: "wrong_org" });
  });

  it("revoked: a licence id listed in SVC_LICENSE_REVOKED answers 402 as revoked", async () => {
    const vars = await installed({}, { SVC_LICENSE_REVOKED: "lic-old, lic-test-1" });
    const response = await callWith(vars, "/sso/acme/login");
    expect(response.status).toBe(402);
    expect(await refusal(response)).toMatchObject({ feature: "sso", licence: "revoked" });
  });
});

describe("the published document at SVC_ENTERPRISE_BASE_URL", () => {
  it("says what the licence permits and where each feature lives", async () => {
    const vars = await installed({ features: ["scim"] }, { SVC_ENTERPRISE_BASE_URL: "https://sso.example.com/ee/" });
    const response = await callWith(vars, "/.well-known/svc-enterprise");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      edition: "enterprise",
      baseUrl: "https://sso.example.com/ee",
      licence: { state: "valid", expiresAt: expect.any(String), graceEndsAt: expect.any(String), permissions: ["scim"], warning: null },
      features: [
        { feature: "sso", name: "single sign-on", url: "https://sso.example.com/ee/sso", permitted: false },
        { feature: "scim", name: "SCIM provisioning", url: "https://sso.example.com/ee/scim/v2", permitted: true },
      ],
    });
  });

  it("with no licence, permits nothing and defaults to SVC_APP_BASE_URL", async () => {
    const body = (await (await call("/.well-known/svc-enterprise")).json()) as { baseUrl: string; licence: unknown; features: Array<{ permitted: boolean }> };
    expect(body.baseUrl).toBe(env.SVC_APP_BASE_URL);
    expect(body.licence).toEqual({ state: "none", expiresAt: null, graceEndsAt: null, permissions: [], warning: null });
    expect(body.features.every((feature) => !feature.permitted)).toBe(true);
  });
});

describe("start-up and config check", () => {
  it("logs the licence state and permissions on start, and warns during the grace period", async () => {
    const valid = await installed({ features: ["sso"] });
    const started = await captureLogs(() => startWith(shell(valid)));
    expect(started.event("config.decided").licence).toMatchObject({ state: "valid", id: "lic-test-1", features: ["sso"], permissions: ["sso"] });
    expect(started.text).not.toContain(valid.SVC_LICENSE_KEY);

    const grace = await installed({ expiresAt: nowSeconds() - DAY, graceSeconds: 7 * DAY });
    const inGrace = await captureLogs(() => startWith(shell(grace)));
    expect(inGrace.event("config.decided").licence).toMatchObject({ state: "grace", permissions: ["sso", "scim"] });
    expect(inGrace.event("licence.grace")).toMatchObject({ level: "warn", id: "lic-test-1" });

    const expired = await installed({ expiresAt: nowSeconds() - 30 * DAY, graceSeconds: DAY });
    const after = await captureLogs(() => startWith(shell(expired)));
    expect(after.event("config.decided").licence).toMatchObject({ state: "expired", features: ["sso", "scim"], permissions: [] });
  });

  it("a licence signed by a key that is not the trusted one under its kid: the Worker refuses to start and config check exits 2", async () => {
    const forged = { ...(await installed()), SVC_LICENSE_KEY: await mintLicence(stranger.privateKeyPem, "k1", claims()) };
    await expect(startWith(shell(forged))).rejects.toBeInstanceOf(LicenceRefusal);
    await expect(startWith(shell(forged))).rejects.toThrow(/SVC_LICENSE_KEY's signature does not verify/);
    const output = await captureLogs(async () => expect(await configCheck(["check"], shell(forged))).toBe(2));
    expect(output.text).toContain("SVC_LICENSE_KEY");
    // A request reaching an isolate that skipped the start check still refuses to honour it.
    const response = await callWith(forged, "/sso/acme/login");
    expect(response.status).toBe(500);
    expect(response.headers.get("x-svc-error-code")).toBe("licence_invalid");
    await response.arrayBuffer();
  });

  it("a licence under a kid nobody trusts, or a tampered one, or garbage: config check exits 2", async () => {
    const good = await installed();
    const untrusted = { ...good, SVC_LICENSE_KEY: await mintLicence(issuer.privateKeyPem, "k9", claims()) };
    const [header, , signature] = good.SVC_LICENSE_KEY.split(".");
    const otherPayload = btoa(JSON.stringify({ lid: "lic-test-1", sub: "acme", exp: nowSeconds() + 3650 * DAY, features: ["sso", "scim"] }))
      .replaceAll("+", "-")
      .replaceAll("/", "_")
      .replace(/=+$/, "");
    const tampered = { ...good, SVC_LICENSE_KEY: `${header}.${otherPayload}.${signature}` };
    const garbage = { ...good, SVC_LICENSE_KEY: "not-a-licence" };
    for (const vars of [untrusted, tampered, garbage]) {
      await captureLogs(async () => expect(await configCheck(["check"], shell(vars))).toBe(2));
      await expect(startWith(shell(vars))).rejects.toBeInstanceOf(LicenceRefusal);
    }
    // A good one passes both.
    await captureLogs(async () => expect(await configCheck(["check"], shell(good))).toBe(0));
  });
});
