import { describe, expect, it } from "vitest";
import { CONFIG_VARIABLES, formatConfigErrors, parseConfig, type ConfigResult } from "../../worker/config/parse";
import { baseEnv, envWith, fullEnv, key32, LICENCE_EXP, LICENCE_PUBLIC_KEY, licenceToken, NOW, PEM } from "./fixtures";

function parsed(env: Readonly<Record<string, unknown>>, edition: "enterprise" | "community" = "enterprise") {
  const result = parseConfig(env, { edition, now: NOW });
  if (!result.ok) throw new Error(formatConfigErrors(result.errors));
  return result;
}

function refusedVariables(result: ConfigResult): string[] {
  return result.ok ? [] : [...new Set(result.errors.map((error) => error.variable))].sort();
}

const appTrio = { SVC_CODEHOST_APP_ID: "123", SVC_CODEHOST_APP_PRIVATE_KEY: PEM, SVC_CODEHOST_APP_WEBHOOK_SECRET: "app-webhook-secret-4e7b19c2" };
const billingTrio = {
  SVC_BILLING_SECRET_KEY: "billing-secret-key-0a9f3e77",
  SVC_BILLING_WEBHOOK_SECRET: "billing-webhook-secret-c41d2b80",
  SVC_BILLING_PRICE_TEAM: "price_team",
};
const mailTrio = { SVC_MAIL_API_KEY: "mail-api-key-7c3e90d1", SVC_MAIL_FROM: "no-reply@example.com", SVC_PUBLIC_URL: "https://cp.example.com" };
const licence = { SVC_LICENSE_KEY: licenceToken(), SVC_ORG: "acme", SVC_LICENSE_PUBLIC_KEYS: `k1=${LICENCE_PUBLIC_KEY}` };
const installUrl = (url: string) => ({ SVC_CODEHOST_APP_INSTALL_URL: url });

interface RefusalCase {
  name: string;
  changes: Record<string, string | undefined>;
  /** The variables the errors name, sorted. */
  refused: string[];
  exitStatus?: 1 | 2;
}

const refusals: RefusalCase[] = [
  // Required variables, each named; an empty value counts as unset.
  { name: "SVC_DATABASE_URL missing", changes: { SVC_DATABASE_URL: undefined }, refused: ["SVC_DATABASE_URL"] },
  { name: "SVC_DATABASE_URL empty", changes: { SVC_DATABASE_URL: "" }, refused: ["SVC_DATABASE_URL"] },
  { name: "SVC_CODEHOST_CLIENT_ID missing", changes: { SVC_CODEHOST_CLIENT_ID: undefined }, refused: ["SVC_CODEHOST_CLIENT_ID"] },
  { name: "SVC_CODEHOST_CLIENT_SECRET blank", changes: { SVC_CODEHOST_CLIENT_SECRET: "  " }, refused: ["SVC_CODEHOST_CLIENT_SECRET"] },
  { name: "SVC_CODEHOST_REDIRECT_URI missing", changes: { SVC_CODEHOST_REDIRECT_URI: undefined }, refused: ["SVC_CODEHOST_REDIRECT_URI"] },
  { name: "SVC_CODEHOST_REDIRECT_URI not an address", changes: { SVC_CODEHOST_REDIRECT_URI: "/auth/callback" }, refused: ["SVC_CODEHOST_REDIRECT_URI"] },

  // Connection strings.
  { name: "SVC_DATABASE_URL not postgres", changes: { SVC_DATABASE_URL: "mysql://app:app-db-password-7f3a1c@db/svc" }, refused: ["SVC_DATABASE_URL"] },
  {
    name: "SVC_ADMIN_DATABASE_URL not a connection string",
    changes: { SVC_ADMIN_DATABASE_URL: "operator-password-88c1f0" },
    refused: ["SVC_ADMIN_DATABASE_URL"],
  },
  {
    name: "SVC_MIGRATION_DATABASE_URL not postgres",
    changes: { SVC_MIGRATION_DATABASE_URL: "https://db.internal/svc" },
    refused: ["SVC_MIGRATION_DATABASE_URL"],
  },
  { name: "SVC_MAINTENANCE_DATABASE_URL without host", changes: { SVC_MAINTENANCE_DATABASE_URL: "postgres://" }, refused: ["SVC_MAINTENANCE_DATABASE_URL"] },
  { name: "SVC_RESEAL_DATABASE_URL not a connection string", changes: { SVC_RESEAL_DATABASE_URL: "reseal" }, refused: ["SVC_RESEAL_DATABASE_URL"] },
  {
    name: "SVC_MIGRATION_DATABASE_URL on Neon's pooled endpoint (-pooler)",
    changes: { SVC_MIGRATION_DATABASE_URL: "postgres://owner:pw@ep-cool-darkness-123456-pooler.us-east-2.aws.neon.tech/svc?sslmode=require" },
    refused: ["SVC_MIGRATION_DATABASE_URL"],
  },
  {
    name: "SVC_MIGRATE=1 without SVC_MIGRATION_DATABASE_URL",
    changes: { SVC_MIGRATE: "1", SVC_MIGRATION_DATABASE_URL: undefined },
    refused: ["SVC_MIGRATION_DATABASE_URL"],
  },

  // Whole numbers.
  { name: "SVC_PORT not a number", changes: { SVC_PORT: "80a" }, refused: ["SVC_PORT"] },
  { name: "SVC_PORT zero", changes: { SVC_PORT: "0" }, refused: ["SVC_PORT"] },
  { name: "SVC_PORT above 65535", changes: { SVC_PORT: "70000" }, refused: ["SVC_PORT"] },
  { name: "SVC_POOL_MAX fractional", changes: { SVC_POOL_MAX: "2.5" }, refused: ["SVC_POOL_MAX"] },
  { name: "SVC_POOL_MAX zero", changes: { SVC_POOL_MAX: "0" }, refused: ["SVC_POOL_MAX"] },
  { name: "SVC_ADMIN_POOL_MAX negative", changes: { SVC_ADMIN_POOL_MAX: "-1" }, refused: ["SVC_ADMIN_POOL_MAX"] },
  { name: "SVC_TRUSTED_PROXY_HOPS zero", changes: { SVC_TRUSTED_PROXY_HOPS: "0" }, refused: ["SVC_TRUSTED_PROXY_HOPS"] },
  { name: "SVC_TRUSTED_PROXY_HOPS 17", changes: { SVC_TRUSTED_PROXY_HOPS: "17" }, refused: ["SVC_TRUSTED_PROXY_HOPS"] },
  { name: "SVC_TRUSTED_PROXY_HOPS not whole", changes: { SVC_TRUSTED_PROXY_HOPS: "1.0" }, refused: ["SVC_TRUSTED_PROXY_HOPS"] },
  { name: "SVC_INGEST_RATE_LIMIT not rate/burst", changes: { SVC_INGEST_RATE_LIMIT: "fast" }, refused: ["SVC_INGEST_RATE_LIMIT"] },
  { name: "SVC_INGEST_RATE_LIMIT zero", changes: { SVC_INGEST_RATE_LIMIT: "0/10" }, refused: ["SVC_INGEST_RATE_LIMIT"] },
  { name: "SVC_DATABASE_WS_PROXY not host:port", changes: { SVC_DATABASE_WS_PROXY: "ws://bridge" }, refused: ["SVC_DATABASE_WS_PROXY"] },
  { name: "SVC_OBJECT_LOCATION_HINT not a hint", changes: { SVC_OBJECT_LOCATION_HINT: "us-east-1" }, refused: ["SVC_OBJECT_LOCATION_HINT"] },
  { name: "SVC_EVENT_RETENTION_MONTHS zero", changes: { SVC_EVENT_RETENTION_MONTHS: "0" }, refused: ["SVC_EVENT_RETENTION_MONTHS"] },
  { name: "SVC_EVENT_RETENTION_MONTHS not whole", changes: { SVC_EVENT_RETENTION_MONTHS: "1.5" }, refused: ["SVC_EVENT_RETENTION_MONTHS"] },
  { name: "SVC_FAILURE_RETENTION_DAYS zero", changes: { SVC_FAILURE_RETENTION_DAYS: "0" }, refused: ["SVC_FAILURE_RETENTION_DAYS"] },
  { name: "SVC_ANALYTICS_RETENTION_DAYS not a number", changes: { SVC_ANALYTICS_RETENTION_DAYS: "forever" }, refused: ["SVC_ANALYTICS_RETENTION_DAYS"] },

  // Flags with four accepted values.
  { name: "SVC_SELF_SERVE_SIGNUP yes", changes: { SVC_SELF_SERVE_SIGNUP: "yes" }, refused: ["SVC_SELF_SERVE_SIGNUP"] },
  { name: "SVC_OPERATOR_SETS_PLAN on", changes: { SVC_OPERATOR_SETS_PLAN: "on" }, refused: ["SVC_OPERATOR_SETS_PLAN"] },

  // Code-host App: all three or none, and a usable private key.
  {
    name: "App id without the other two",
    changes: { SVC_CODEHOST_APP_ID: "123" },
    refused: ["SVC_CODEHOST_APP_PRIVATE_KEY", "SVC_CODEHOST_APP_WEBHOOK_SECRET"],
  },
  { name: "App without webhook secret", changes: { ...appTrio, SVC_CODEHOST_APP_WEBHOOK_SECRET: undefined }, refused: ["SVC_CODEHOST_APP_WEBHOOK_SECRET"] },
  { name: "App without id", changes: { ...appTrio, SVC_CODEHOST_APP_ID: undefined }, refused: ["SVC_CODEHOST_APP_ID"] },
  {
    name: "App private key neither PEM nor base64",
    changes: { ...appTrio, SVC_CODEHOST_APP_PRIVATE_KEY: "not-a-private-key-at-all" },
    refused: ["SVC_CODEHOST_APP_PRIVATE_KEY"],
  },
  {
    name: "App private key base64 of something else",
    changes: { ...appTrio, SVC_CODEHOST_APP_PRIVATE_KEY: btoa("just some text, no PEM") },
    refused: ["SVC_CODEHOST_APP_PRIVATE_KEY"],
  },
  {
    name: "App private key PEM without its END line",
    changes: { ...appTrio, SVC_CODEHOST_APP_PRIVATE_KEY: PEM.split("\n").slice(0, 3).join("\n") },
    refused: ["SVC_CODEHOST_APP_PRIVATE_KEY"],
  },

  // Install address.
  { name: "install URL on another origin", changes: installUrl("https://gitlab.com/apps/svc/installations/new"), refused: ["SVC_CODEHOST_APP_INSTALL_URL"] },
  { name: "install URL over http", changes: installUrl("http://github.com/apps/svc/installations/new"), refused: ["SVC_CODEHOST_APP_INSTALL_URL"] },
  { name: "install URL with a query", changes: installUrl("https://github.com/apps/svc/installations/new?state=1"), refused: ["SVC_CODEHOST_APP_INSTALL_URL"] },
  { name: "install URL with an empty query", changes: installUrl("https://github.com/apps/svc/installations/new?"), refused: ["SVC_CODEHOST_APP_INSTALL_URL"] },
  { name: "install URL with a fragment", changes: installUrl("https://github.com/apps/svc/installations/new#top"), refused: ["SVC_CODEHOST_APP_INSTALL_URL"] },
  { name: "install URL with another path", changes: installUrl("https://github.com/apps/svc/installations"), refused: ["SVC_CODEHOST_APP_INSTALL_URL"] },
  { name: "install URL not an address", changes: installUrl("github.com/apps/svc/installations/new"), refused: ["SVC_CODEHOST_APP_INSTALL_URL"] },

  // Addresses.
  { name: "SVC_SIGNUP_URL not http", changes: { SVC_SIGNUP_URL: "ftp://example.com/signup" }, refused: ["SVC_SIGNUP_URL"] },
  { name: "SVC_SIGNUP_URL relative", changes: { SVC_SIGNUP_URL: "/signup" }, refused: ["SVC_SIGNUP_URL"] },
  { name: "SVC_APP_BASE_URL not an address", changes: { SVC_APP_BASE_URL: "cp.example.com" }, refused: ["SVC_APP_BASE_URL"] },
  { name: "SVC_CODEHOST_API_BASE not an address", changes: { SVC_CODEHOST_API_BASE: "api.github.com" }, refused: ["SVC_CODEHOST_API_BASE"] },
  { name: "SVC_BILLING_API_BASE not an address", changes: { SVC_BILLING_API_BASE: "localhost:8101" }, refused: ["SVC_BILLING_API_BASE"] },
  { name: "SVC_MAIL_BASE_URL not an address", changes: { SVC_MAIL_BASE_URL: "resend" }, refused: ["SVC_MAIL_BASE_URL"] },
  { name: "SVC_ENV_URL not an address", changes: { SVC_ENV_URL: "preview" }, refused: ["SVC_ENV_URL"] },
  {
    name: "SVC_MESSAGES_PROVIDER_API_BASE not an address",
    changes: { SVC_MESSAGES_PROVIDER_API_BASE: "api.anthropic.com" },
    refused: ["SVC_MESSAGES_PROVIDER_API_BASE"],
  },
  { name: "SVC_CHAT_PROVIDER_API_BASE not http", changes: { SVC_CHAT_PROVIDER_API_BASE: "ftp://127.0.0.1:8103" }, refused: ["SVC_CHAT_PROVIDER_API_BASE"] },
  { name: "SVC_ANALYTICS_VENDOR_API_BASE not an address", changes: { SVC_ANALYTICS_VENDOR_API_BASE: "capture" }, refused: ["SVC_ANALYTICS_VENDOR_API_BASE"] },

  // Site origins.
  { name: "SVC_SITE_ORIGIN with a path", changes: { SVC_SITE_ORIGIN: "https://example.com/site" }, refused: ["SVC_SITE_ORIGIN"] },
  { name: "SVC_SITE_ORIGIN with an empty entry", changes: { SVC_SITE_ORIGIN: "https://example.com,,https://b.example.com" }, refused: ["SVC_SITE_ORIGIN"] },
  { name: "SVC_SITE_ORIGIN with a trailing comma", changes: { SVC_SITE_ORIGIN: "https://example.com," }, refused: ["SVC_SITE_ORIGIN"] },
  { name: "SVC_SITE_ORIGIN with a wildcard", changes: { SVC_SITE_ORIGIN: "https://*.example.com" }, refused: ["SVC_SITE_ORIGIN"] },
  { name: "SVC_SITE_ORIGIN bare wildcard", changes: { SVC_SITE_ORIGIN: "*" }, refused: ["SVC_SITE_ORIGIN"] },
  { name: "SVC_SITE_ORIGIN with a query", changes: { SVC_SITE_ORIGIN: "https://example.com?x=1" }, refused: ["SVC_SITE_ORIGIN"] },
  { name: "SVC_SITE_ORIGIN with a fragment", changes: { SVC_SITE_ORIGIN: "https://example.com#x" }, refused: ["SVC_SITE_ORIGIN"] },
  { name: "SVC_SITE_ORIGIN with another scheme", changes: { SVC_SITE_ORIGIN: "ws://example.com" }, refused: ["SVC_SITE_ORIGIN"] },

  // Model prices.
  { name: "SVC_MODEL_PRICES without output price", changes: { SVC_MODEL_PRICES: "gpt-4o=2.5" }, refused: ["SVC_MODEL_PRICES"] },
  { name: "SVC_MODEL_PRICES negative price", changes: { SVC_MODEL_PRICES: "gpt-4o=-1/2" }, refused: ["SVC_MODEL_PRICES"] },
  { name: "SVC_MODEL_PRICES entry without =", changes: { SVC_MODEL_PRICES: "gpt-4o 2/8" }, refused: ["SVC_MODEL_PRICES"] },
  { name: "SVC_MODEL_PRICES empty entry", changes: { SVC_MODEL_PRICES: "a=1/2,,b=1/2" }, refused: ["SVC_MODEL_PRICES"] },
  { name: "SVC_MODEL_PRICES one model two prices", changes: { SVC_MODEL_PRICES: "a=1/2,a=3/4" }, refused: ["SVC_MODEL_PRICES"] },

  // Sealing keys.
  { name: "SVC_PROVIDER_KEY_SECRET 16 bytes", changes: { SVC_PROVIDER_KEY_SECRET: btoa("0123456789abcdef") }, refused: ["SVC_PROVIDER_KEY_SECRET"] },
  { name: "SVC_PROVIDER_KEY_SECRET without padding", changes: { SVC_PROVIDER_KEY_SECRET: key32(1).replace("=", "") }, refused: ["SVC_PROVIDER_KEY_SECRET"] },
  {
    name: "SVC_PROVIDER_KEY_SECRET with non-zero trailing bits",
    changes: { SVC_PROVIDER_KEY_SECRET: key32(1).replace(/E=$/, "F=") },
    refused: ["SVC_PROVIDER_KEY_SECRET"],
  },
  { name: "SVC_PROVIDER_KEY_SECRETS upper-case version", changes: { SVC_PROVIDER_KEY_SECRETS: `V2=${key32(2)}` }, refused: ["SVC_PROVIDER_KEY_SECRETS"] },
  {
    name: "SVC_PROVIDER_KEY_SECRETS version over 32 characters",
    changes: { SVC_PROVIDER_KEY_SECRETS: `${"v".repeat(33)}=${key32(2)}` },
    refused: ["SVC_PROVIDER_KEY_SECRETS"],
  },
  { name: "SVC_PROVIDER_KEY_SECRETS short key", changes: { SVC_PROVIDER_KEY_SECRETS: `v2=${btoa("short")}` }, refused: ["SVC_PROVIDER_KEY_SECRETS"] },
  {
    name: "SVC_PROVIDER_KEY_SECRETS two keys under one version",
    changes: { SVC_PROVIDER_KEY_SECRETS: `v2=${key32(2)},v2=${key32(3)}`, SVC_PROVIDER_KEY_VERSION: "v2" },
    refused: ["SVC_PROVIDER_KEY_SECRETS"],
  },
  {
    name: "SVC_PROVIDER_KEY_SECRETS v1 differs from the single key",
    changes: { SVC_PROVIDER_KEY_SECRET: key32(1), SVC_PROVIDER_KEY_SECRETS: `v1=${key32(2)}` },
    refused: ["SVC_PROVIDER_KEY_SECRETS"],
  },
  {
    name: "several keys without SVC_PROVIDER_KEY_VERSION",
    changes: { SVC_PROVIDER_KEY_SECRET: key32(1), SVC_PROVIDER_KEY_SECRETS: `v2=${key32(2)}` },
    refused: ["SVC_PROVIDER_KEY_VERSION"],
  },
  {
    name: "SVC_PROVIDER_KEY_VERSION names no key",
    changes: { SVC_PROVIDER_KEY_SECRET: key32(1), SVC_PROVIDER_KEY_VERSION: "v9" },
    refused: ["SVC_PROVIDER_KEY_VERSION"],
  },
  { name: "SVC_PROVIDER_KEY_VERSION with no keys at all", changes: { SVC_PROVIDER_KEY_VERSION: "v1" }, refused: ["SVC_PROVIDER_KEY_VERSION"] },

  // Plans and billing.
  {
    name: "SVC_HOSTED_REQUIRED_PLAN team",
    changes: { ...billingTrio, SVC_BILLING_PRICE_ENTERPRISE: "price_ent", SVC_HOSTED_REQUIRED_PLAN: "team" },
    refused: ["SVC_HOSTED_REQUIRED_PLAN"],
  },
  { name: "SVC_HOSTED_REQUIRED_PLAN with billing off", changes: { SVC_HOSTED_REQUIRED_PLAN: "enterprise" }, refused: ["SVC_HOSTED_REQUIRED_PLAN"] },
  {
    name: "SVC_HOSTED_REQUIRED_PLAN with billing partly set",
    changes: { SVC_BILLING_SECRET_KEY: "billing-secret-key-0a9f3e77", SVC_BILLING_PRICE_ENTERPRISE: "price_ent", SVC_HOSTED_REQUIRED_PLAN: "enterprise" },
    refused: ["SVC_HOSTED_REQUIRED_PLAN"],
  },
  {
    name: "SVC_HOSTED_REQUIRED_PLAN without enterprise price",
    changes: { ...billingTrio, SVC_HOSTED_REQUIRED_PLAN: "enterprise" },
    refused: ["SVC_BILLING_PRICE_ENTERPRISE"],
  },
  { name: "SVC_OPERATOR_SETS_PLAN with billing", changes: { ...billingTrio, SVC_OPERATOR_SETS_PLAN: "1" }, refused: ["SVC_OPERATOR_SETS_PLAN"] },
  {
    name: "SVC_OPERATOR_SETS_PLAN with one billing variable",
    changes: { SVC_BILLING_PRICE_ENTERPRISE: "price_ent", SVC_OPERATOR_SETS_PLAN: "true" },
    refused: ["SVC_OPERATOR_SETS_PLAN"],
  },
  {
    name: "SVC_OPERATOR_SETS_PLAN with SVC_HOSTED_REQUIRED_PLAN",
    changes: { ...billingTrio, SVC_BILLING_PRICE_ENTERPRISE: "price_ent", SVC_HOSTED_REQUIRED_PLAN: "enterprise", SVC_OPERATOR_SETS_PLAN: "1" },
    refused: ["SVC_OPERATOR_SETS_PLAN"],
  },

  // Magic-link mail: all three or none.
  { name: "mail key alone", changes: { SVC_MAIL_API_KEY: "mail-api-key-7c3e90d1" }, refused: ["SVC_MAIL_FROM", "SVC_PUBLIC_URL"] },
  { name: "mail without SVC_PUBLIC_URL", changes: { ...mailTrio, SVC_PUBLIC_URL: undefined }, refused: ["SVC_PUBLIC_URL"] },
  { name: "SVC_PUBLIC_URL alone", changes: { SVC_PUBLIC_URL: "https://cp.example.com" }, refused: ["SVC_MAIL_API_KEY", "SVC_MAIL_FROM"] },
  { name: "SVC_PUBLIC_URL not an address", changes: { ...mailTrio, SVC_PUBLIC_URL: "cp.example.com" }, refused: ["SVC_PUBLIC_URL"] },

  // Analytics.
  {
    name: "SVC_ANALYTICS_SURROGATE_SECRET 63 hex characters",
    changes: { SVC_ANALYTICS_SURROGATE_SECRET: "a".repeat(63) },
    refused: ["SVC_ANALYTICS_SURROGATE_SECRET"],
  },
  { name: "SVC_ANALYTICS_SURROGATE_SECRET not hex", changes: { SVC_ANALYTICS_SURROGATE_SECRET: "g".repeat(64) }, refused: ["SVC_ANALYTICS_SURROGATE_SECRET"] },
  { name: "SVC_ANALYTICS_VENDOR_REGION ap", changes: { SVC_ANALYTICS_VENDOR_REGION: "ap" }, refused: ["SVC_ANALYTICS_VENDOR_REGION"] },

  // Enterprise edition.
  { name: "SVC_EE_SSO_KEY missing", changes: { SVC_EE_SSO_KEY: undefined }, refused: ["SVC_EE_SSO_KEY"] },
  { name: "SVC_EE_SSO_KEY not 32 bytes", changes: { SVC_EE_SSO_KEY: btoa("sso-key-too-short") }, refused: ["SVC_EE_SSO_KEY"] },
  { name: "neither SVC_ENTERPRISE_BASE_URL nor SVC_APP_BASE_URL", changes: { SVC_APP_BASE_URL: undefined }, refused: ["SVC_ENTERPRISE_BASE_URL"] },
  { name: "SVC_ENTERPRISE_BASE_URL not an address", changes: { SVC_ENTERPRISE_BASE_URL: "sso.example.com" }, refused: ["SVC_ENTERPRISE_BASE_URL"] },

  // Licence: missing companions exit 1; an unusable key exits 2.
  { name: "licence without SVC_ORG", changes: { ...licence, SVC_ORG: undefined }, refused: ["SVC_ORG"] },
  { name: "licence without SVC_LICENSE_PUBLIC_KEYS", changes: { ...licence, SVC_LICENSE_PUBLIC_KEYS: undefined }, refused: ["SVC_LICENSE_PUBLIC_KEYS"] },
  {
    name: "SVC_LICENSE_PUBLIC_KEYS entry without kid",
    changes: { ...licence, SVC_LICENSE_PUBLIC_KEYS: LICENCE_PUBLIC_KEY.replace("=", "") },
    refused: ["SVC_LICENSE_PUBLIC_KEYS"],
  },
  { name: "SVC_LICENSE_PUBLIC_KEYS key not base64", changes: { ...licence, SVC_LICENSE_PUBLIC_KEYS: "k1=not base64!" }, refused: ["SVC_LICENSE_PUBLIC_KEYS"] },
  { name: "licence not a JWS", changes: { ...licence, SVC_LICENSE_KEY: "licence-garbage-value" }, refused: ["SVC_LICENSE_KEY"], exitStatus: 2 },
  {
    name: "licence with two parts",
    changes: { ...licence, SVC_LICENSE_KEY: licenceToken().split(".").slice(0, 2).join(".") },
    refused: ["SVC_LICENSE_KEY"],
    exitStatus: 2,
  },
  { name: "licence signed with RS256", changes: { ...licence, SVC_LICENSE_KEY: licenceToken({ alg: "RS256" }) }, refused: ["SVC_LICENSE_KEY"], exitStatus: 2 },
  {
    name: "licence header without kid",
    changes: { ...licence, SVC_LICENSE_KEY: licenceToken({ kid: undefined }) },
    refused: ["SVC_LICENSE_KEY"],
    exitStatus: 2,
  },
  {
    name: "licence payload without lid",
    changes: { ...licence, SVC_LICENSE_KEY: licenceToken({}, { lid: undefined }) },
    refused: ["SVC_LICENSE_KEY"],
    exitStatus: 2,
  },
  {
    name: "licence exp not a number",
    changes: { ...licence, SVC_LICENSE_KEY: licenceToken({}, { exp: "2040-01-01" }) },
    refused: ["SVC_LICENSE_KEY"],
    exitStatus: 2,
  },
  {
    name: "licence grace not a whole number",
    changes: { ...licence, SVC_LICENSE_KEY: licenceToken({}, { grace: -1 }) },
    refused: ["SVC_LICENSE_KEY"],
    exitStatus: 2,
  },
  { name: "SVC_LICENSE_PUBLIC_KEYS key not 32 bytes", changes: { ...licence, SVC_LICENSE_PUBLIC_KEYS: "k1=AAAA" }, refused: ["SVC_LICENSE_PUBLIC_KEYS"] },
  {
    name: "licence features not strings",
    changes: { ...licence, SVC_LICENSE_KEY: licenceToken({}, { features: [1] }) },
    refused: ["SVC_LICENSE_KEY"],
    exitStatus: 2,
  },
  {
    name: "licence signed by an untrusted key",
    changes: { ...licence, SVC_LICENSE_KEY: licenceToken({ kid: "k2" }) },
    refused: ["SVC_LICENSE_KEY"],
    exitStatus: 2,
  },
];

describe("parseConfig refusals", () => {
  it("accepts the base environment without warnings", () => {
    expect(parsed(baseEnv).warnings).toEqual([]);
  });

  it("accepts the full environment without warnings", () => {
    expect(parsed(fullEnv).warnings).toEqual([]);
  });

  it.each(refusals)("refuses: $name", ({ changes, refused, exitStatus = 1 }) => {
    const result = parseConfig(envWith(changes), { now: NOW });
    expect(result.ok).toBe(false);
    expect(refusedVariables(result)).toEqual(refused);
    if (result.ok) return;
    for (const error of result.errors) {
      expect(error.exitStatus).toBe(exitStatus);
      expect(error.message).toContain(error.variable);
      // No message repeats a value it refused (values may be secrets).
      for (const value of Object.values(changes)) if (value && value.length >= 12) expect(error.message).not.toContain(value);
    }
  });

  it("collects every problem instead of stopping at the first", () => {
    const result = parseConfig({ SVC_PORT: "x", SVC_SELF_SERVE_SIGNUP: "maybe" });
    expect(refusedVariables(result)).toEqual([
      "SVC_CODEHOST_CLIENT_ID",
      "SVC_CODEHOST_CLIENT_SECRET",
      "SVC_CODEHOST_REDIRECT_URI",
      "SVC_DATABASE_URL",
      "SVC_EE_SSO_KEY",
      "SVC_ENTERPRISE_BASE_URL",
      "SVC_PORT",
      "SVC_SELF_SERVE_SIGNUP",
    ]);
  });

  it("formats every refused variable on its own line", () => {
    const result = parseConfig(envWith({ SVC_DATABASE_URL: undefined, SVC_PORT: "0" }));
    if (result.ok) throw new Error("expected a refusal");
    const text = formatConfigErrors(result.errors);
    const lines = text.split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain("SVC_DATABASE_URL and SVC_PORT");
    expect(lines[1]).toContain("SVC_DATABASE_URL");
    expect(lines[2]).toContain("SVC_PORT");
  });
});

describe("parseConfig defaults", () => {
  it("fills every default from the spec", () => {
    const { config } = parsed(baseEnv);
    expect(config.edition).toBe("enterprise");
    expect(config.build).toEqual({ version: "dev", commit: "unknown" });
    expect(config.server).toEqual({
      port: 8080,
      trustedProxyHops: 1,
      insecureCookies: false,
      consoleDir: "/app/console-out",
      appBaseUrl: "https://cp.example.com",
      siteOrigins: [],
      envUrl: null,
    });
    expect(config.database).toMatchObject({ poolMax: 10, adminUrl: null, adminPoolMax: 4, migrate: false, resealUrl: null });
    expect(config.database.maintenanceUrl).toBe(baseEnv.SVC_MIGRATION_DATABASE_URL);
    expect(config.codehost).toMatchObject({ apiBase: "https://api.github.com", app: null, installUrl: null });
    expect(config.signIn).toEqual({ allowlist: null, signupUrl: null, selfServeSignup: false });
    expect(config.providerKeys).toBeNull();
    expect(config.billing).toEqual({ provider: null, apiBase: "https://api.stripe.com", hostedRequiredPlan: null, operatorSetsPlan: false });
    expect(config.mail).toEqual({ magicLink: null, baseUrl: "https://api.resend.com", productName: expect.any(String), leadNotifyEmail: null });
    expect(config.mail.productName).not.toBe("");
    expect(config.events).toEqual({ retentionMonths: null, archiveDir: null, ingestRateLimit: { refillPerSecond: 2000, capacity: 20000 } });
    expect(config.failures).toEqual({ store: true, retentionDays: 30 });
    expect(config.analytics).toEqual({
      surrogateSecret: null,
      operatorOrg: null,
      retentionDays: null,
      vendorRegion: null,
      vendorProjectKey: null,
      vendorApiBase: null,
    });
    expect(config.modelProviders).toEqual({ messagesApiBase: "https://api.anthropic.com", chatApiBase: "https://api.openai.com" });
    expect(config.enterprise?.baseUrl).toBe("https://cp.example.com");
    expect(config.enterprise?.licence).toEqual({ state: "none" });
    expect(config.modelPrices.size).toBeGreaterThan(0);
  });

  it("reads every value of the full environment", () => {
    const { config } = parsed(fullEnv);
    expect(config.server).toEqual({
      port: 9090,
      trustedProxyHops: 2,
      insecureCookies: true,
      consoleDir: "/srv/console",
      appBaseUrl: "https://cp.example.com",
      siteOrigins: ["https://example.com", "http://localhost:8788"],
      envUrl: "https://preview.example.com",
    });
    expect(config.database).toMatchObject({ poolMax: 20, adminPoolMax: 2, migrate: true, maintenanceUrl: fullEnv.SVC_MAINTENANCE_DATABASE_URL });
    expect(config.codehost.apiBase).toBe("https://ghe.example.com/api/v3");
    expect(config.billing.provider).toEqual({
      secretKey: fullEnv.SVC_BILLING_SECRET_KEY,
      webhookSecret: fullEnv.SVC_BILLING_WEBHOOK_SECRET,
      teamPrice: "price_team_123",
      enterprisePrice: "price_enterprise_456",
    });
    expect(config.billing.hostedRequiredPlan).toBe("enterprise");
    expect(config.mail.magicLink).toEqual({ apiKey: fullEnv.SVC_MAIL_API_KEY, from: fullEnv.SVC_MAIL_FROM, publicUrl: "https://cp.example.com" });
    expect(config.mail.productName).toBe("Acme Cloud");
    expect(config.events).toEqual({ retentionMonths: 13, archiveDir: "archive/events", ingestRateLimit: { refillPerSecond: 500, capacity: 5000 } });
    expect(config.database.wsProxy).toBe("127.0.0.1:54330");
    expect(config.database.objectLocationHint).toBe("enam");
    expect(config.failures).toEqual({ store: false, retentionDays: 7 });
    expect(config.analytics).toEqual({
      surrogateSecret: "ab".repeat(32),
      operatorOrg: "acme",
      retentionDays: 90,
      vendorRegion: "eu",
      vendorProjectKey: fullEnv.SVC_ANALYTICS_VENDOR_PROJECT_KEY,
      vendorApiBase: "http://127.0.0.1:8105",
    });
    expect(config.modelProviders).toEqual({ messagesApiBase: "http://127.0.0.1:8103", chatApiBase: "http://127.0.0.1:8104" });
    expect(config.enterprise?.baseUrl).toBe("https://sso.example.com");
  });

  it("falls back from SVC_ENV_URL to SVC_PUBLIC_URL", () => {
    expect(parsed(envWith(mailTrio)).config.server.envUrl).toBe("https://cp.example.com");
  });

  it("turns ingestion rate limiting off with SVC_INGEST_RATE_LIMIT=off", () => {
    const result = parseConfig({ ...baseEnv, SVC_INGEST_RATE_LIMIT: "off" });
    expect(result.ok && result.config.events.ingestRateLimit).toBeNull();
  });

  it.each(["off", "0", "false"])("turns the failure store off with %s", (value) => {
    expect(parsed(envWith({ SVC_FAILURE_STORE: value })).config.failures.store).toBe(false);
  });

  it("reads exactly the listed variables", () => {
    const read = new Set<string>();
    const env = new Proxy(fullEnv, {
      get: (target, name: string) => {
        read.add(name);
        return target[name];
      },
    });
    parsed(env);
    expect([...read].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });
});

describe("sign-in allowlist", () => {
  it("is null when unset: anyone may sign in", () => {
    expect(parsed(baseEnv).config.signIn.allowlist).toBeNull();
  });

  it.each(["", "  ", " , "])("is empty when set but empty (%j): nobody may sign in", (value) => {
    expect(parsed(envWith({ SVC_SIGNIN_ALLOWLIST: value })).config.signIn.allowlist).toEqual([]);
  });

  it("lists logins separated by commas or whitespace, lower-cased", () => {
    const { config } = parsed(envWith({ SVC_SIGNIN_ALLOWLIST: "alice, Bob\ncarol,,alice" }));
    expect(config.signIn.allowlist).toEqual(["alice", "bob", "carol"]);
  });
});

describe("code-host App", () => {
  const expected = PEM;

  it("keeps a PEM as given", () => {
    expect(parsed(envWith(appTrio)).config.codehost.app).toEqual({
      appId: "123",
      privateKeyPem: expected,
      webhookSecret: appTrio.SVC_CODEHOST_APP_WEBHOOK_SECRET,
    });
  });

  it("turns literal \\n sequences into newlines", () => {
    const oneLine = PEM.trimEnd().replaceAll("\n", "\\n");
    expect(parsed(envWith({ ...appTrio, SVC_CODEHOST_APP_PRIVATE_KEY: oneLine })).config.codehost.app?.privateKeyPem).toBe(expected);
  });

  it("accepts a base64-encoded PEM, including one with CRLF line ends", () => {
    for (const pem of [PEM, PEM.replaceAll("\n", "\r\n")]) {
      expect(parsed(envWith({ ...appTrio, SVC_CODEHOST_APP_PRIVATE_KEY: btoa(pem) })).config.codehost.app?.privateKeyPem).toBe(expected);
    }
  });

  it("accepts the App's installation address", () => {
    const url = "https://github.com/apps/svc-control-plane/installations/new";
    expect(parsed(envWith({ SVC_CODEHOST_APP_INSTALL_URL: url })).config.codehost.installUrl).toBe(url);
  });
});

describe("site origins", () => {
  it("normalizes case, default ports and a bare trailing slash", () => {
    const { config } = parsed(envWith({ SVC_SITE_ORIGIN: "HTTPS://Example.com:443/, http://localhost:8788 ,https://example.com" }));
    expect(config.server.siteOrigins).toEqual(["https://example.com", "http://localhost:8788"]);
  });
});

describe("model prices", () => {
  it("lays configured prices over the built-in table", () => {
    const builtIn = parsed(baseEnv).config.modelPrices;
    const { config } = parsed(envWith({ SVC_MODEL_PRICES: "my-model=1.25/5, gpt-4o=2/8" }));
    expect(config.modelPrices.get("my-model")).toEqual({ input: 1.25, output: 5 });
    expect(config.modelPrices.get("gpt-4o")).toEqual({ input: 2, output: 8 });
    expect(config.modelPrices.size).toBe(builtIn.size + 1);
  });
});

describe("analytics capture host", () => {
  it("is the region's own host unless SVC_ANALYTICS_VENDOR_API_BASE names another", () => {
    expect(parsed(envWith({ SVC_ANALYTICS_VENDOR_REGION: "us" })).config.analytics.vendorApiBase).toBe("https://us.i.posthog.com");
    expect(parsed(envWith({ SVC_ANALYTICS_VENDOR_REGION: "eu" })).config.analytics.vendorApiBase).toBe("https://eu.i.posthog.com");
  });
});

describe("sealing keys", () => {
  it("holds the single key as v1 and seals with it", () => {
    const keys = parsed(envWith({ SVC_PROVIDER_KEY_SECRET: key32(1) })).config.providerKeys;
    expect(keys?.sealingVersion).toBe("v1");
    expect([...(keys?.keys.keys() ?? [])]).toEqual(["v1"]);
    expect(keys?.keys.get("v1")).toEqual(new Uint8Array(32).fill(1));
  });

  it("merges the single key with the list and seals with the chosen version", () => {
    const { config } = parsed(
      envWith({
        SVC_PROVIDER_KEY_SECRET: key32(1),
        SVC_PROVIDER_KEY_SECRETS: `v1=${key32(1)}, 2024.06_b-x=${key32(2)}`,
        SVC_PROVIDER_KEY_VERSION: "2024.06_b-x",
      }),
    );
    expect([...(config.providerKeys?.keys.keys() ?? [])]).toEqual(["v1", "2024.06_b-x"]);
    expect(config.providerKeys?.sealingVersion).toBe("2024.06_b-x");
  });

  it("seals with the only version of a list without SVC_PROVIDER_KEY_VERSION", () => {
    expect(parsed(envWith({ SVC_PROVIDER_KEY_SECRETS: `k7=${key32(7)}` })).config.providerKeys?.sealingVersion).toBe("k7");
  });
});

describe("warnings", () => {
  it("leaves billing off and names the missing variables when only some are set", () => {
    const result = parsed(envWith({ SVC_BILLING_SECRET_KEY: "billing-secret-key-0a9f3e77" }));
    expect(result.config.billing.provider).toBeNull();
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toContain("SVC_BILLING_WEBHOOK_SECRET");
    expect(result.warnings[0]).toContain("SVC_BILLING_PRICE_TEAM");
    expect(result.warnings[0]).not.toContain("billing-secret-key-0a9f3e77");
  });

  it("flags a lead address with no way to send mail", () => {
    const result = parsed(envWith({ SVC_LEAD_NOTIFY_EMAIL: "sales@example.com" }));
    expect(result.config.mail.leadNotifyEmail).toBe("sales@example.com");
    expect(result.warnings).toEqual([expect.stringContaining("SVC_LEAD_NOTIFY_EMAIL")]);
  });

  it("sends no hosted usage when the project key lacks the region and the surrogate secret", () => {
    const result = parsed(envWith({ SVC_ANALYTICS_VENDOR_PROJECT_KEY: "analytics-project-key-55e0c3" }));
    expect(result.config.analytics.vendorProjectKey).toBeNull();
    expect(result.warnings).toEqual([expect.stringMatching(/SVC_ANALYTICS_VENDOR_REGION.*SVC_ANALYTICS_SURROGATE_SECRET/)]);
  });

  it("says partitions are not kept ahead without a maintenance or migration role", () => {
    const result = parsed(envWith({ SVC_MIGRATION_DATABASE_URL: undefined }));
    expect(result.config.database.maintenanceUrl).toBeNull();
    expect(result.warnings).toEqual([expect.stringContaining("SVC_MAINTENANCE_DATABASE_URL")]);
  });

  it("flags a value other than 1 for a variable only 1 turns on", () => {
    const result = parsed(envWith({ SVC_INSECURE_COOKIES: "yes" }));
    expect(result.config.server.insecureCookies).toBe(false);
    expect(result.warnings).toEqual([expect.stringContaining("SVC_INSECURE_COOKIES")]);
  });

  it("ignores bindings and flags a config variable that is not text", () => {
    const result = parsed({ ...baseEnv, ENVIRONMENT_OBJECTS: { idFromName() {} }, SVC_PORT: 9090 });
    expect(result.config.server.port).toBe(8080);
    expect(result.warnings).toEqual([expect.stringContaining("SVC_PORT")]);
  });
});

describe("editions", () => {
  it("community ignores every enterprise variable, however wrong", () => {
    const env = envWith({
      SVC_EE_SSO_KEY: "bad",
      SVC_APP_BASE_URL: undefined,
      SVC_LICENSE_KEY: "licence-garbage-value",
      SVC_ENTERPRISE_BASE_URL: "not a url",
      SVC_LICENSE_PUBLIC_KEYS: "nonsense",
    });
    expect(refusedVariables(parseConfig(env))).toEqual(expect.arrayContaining(["SVC_EE_SSO_KEY", "SVC_LICENSE_KEY"]));
    const { config, warnings } = parsed(env, "community");
    expect(config.edition).toBe("community");
    expect(config.enterprise).toBeNull();
    expect(warnings).toEqual([]);
  });
});

describe("licence", () => {
  const withLicence = (changes: Record<string, string | undefined> = {}) => parsed(envWith({ ...licence, ...changes })).config.enterprise!.licence;

  it("keeps the parsed token and the trusted public key for later verification", () => {
    const parsedLicence = withLicence();
    if (parsedLicence.state === "none") throw new Error("expected a licence");
    expect(parsedLicence.state).toBe("valid");
    expect(parsedLicence.publicKey).toBe(LICENCE_PUBLIC_KEY);
    expect(parsedLicence.token.header).toEqual({ alg: "EdDSA", kid: "k1" });
    expect(parsedLicence.token.payload).toEqual({ lid: "lic-001", sub: "acme", exp: LICENCE_EXP, grace: 0, features: ["sso", "scim"] });
    expect(parsedLicence.token.signingInput).toBe(licence.SVC_LICENSE_KEY.split(".").slice(0, 2).join("."));
    expect(parsedLicence.token.signature).toEqual(new Uint8Array(64).fill("s".charCodeAt(0)));
  });

  it("is wrong_org for another organization", () => {
    expect(withLicence({ SVC_ORG: "globex" }).state).toBe("wrong_org");
  });

  it("is revoked when its id is listed", () => {
    expect(withLicence({ SVC_LICENSE_REVOKED: "lic-000, lic-001" }).state).toBe("revoked");
  });

  it("is expired after exp when it has no grace period", () => {
    expect(withLicence({ SVC_LICENSE_KEY: licenceToken({}, { exp: NOW / 1000 - 1 }) }).state).toBe("expired");
  });

  it("is in grace after exp until exp + grace, then expired", () => {
    expect(withLicence({ SVC_LICENSE_KEY: licenceToken({}, { exp: NOW / 1000 - 1, grace: 60 }) }).state).toBe("grace");
    expect(withLicence({ SVC_LICENSE_KEY: licenceToken({}, { exp: NOW / 1000 - 60, grace: 60 }) }).state).toBe("expired");
  });

  it("is none when the key is empty, even without its companions", () => {
    expect(withLicence({ SVC_LICENSE_KEY: "", SVC_ORG: undefined, SVC_LICENSE_PUBLIC_KEYS: undefined }).state).toBe("none");
  });
});
