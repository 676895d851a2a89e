// Environments and values shared by the config tests. Secrets are long, distinctive strings so a
// test can prove none of them leaks into a message or the start-up summary.

/** 32 bytes of `fill`, in canonical base64. */
export function key32(fill: number): string {
  return btoa(String.fromCharCode(...new Uint8Array(32).fill(fill)));
}

function base64url(text: string): string {
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** A compact JWS with a dummy signature: the parser checks shape and key id, not the signature. */
export function licenceToken(header: object = {}, payload: object = {}): string {
  const h = base64url(JSON.stringify({ alg: "EdDSA", kid: "k1", ...header }));
  const p = base64url(JSON.stringify({ lid: "lic-001", sub: "acme", exp: LICENCE_EXP, features: ["sso", "scim"], ...payload }));
  return `${h}.${p}.${base64url("s".repeat(64))}`;
}

/** 2040-01-01, after `NOW`. */
export const LICENCE_EXP = 2208988800;
/** 2030-01-01. */
export const NOW = Date.UTC(2030, 0, 1);
export const LICENCE_PUBLIC_KEY = key32(9);

export const PEM = [
  "-----BEGIN RSA PRIVATE KEY-----",
  "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
  "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
  "-----END RSA PRIVATE KEY-----",
  "",
].join("\n");

/** The smallest enterprise environment that parses with no error and no warning. */
export const baseEnv: Readonly<Record<string, string>> = {
  SVC_DATABASE_URL: "postgres://app:app-db-password-7f3a1c@db.internal:5432/svc",
  SVC_MIGRATION_DATABASE_URL: "postgresql://migrator:migrator-password-2b9e4d@db.internal:5432/svc",
  SVC_CODEHOST_CLIENT_ID: "Iv1.0123456789abcdef",
  SVC_CODEHOST_CLIENT_SECRET: "codehost-client-secret-5d8e2a91",
  SVC_CODEHOST_REDIRECT_URI: "https://cp.example.com/auth/codehost/callback",
  SVC_APP_BASE_URL: "https://cp.example.com",
  SVC_EE_SSO_KEY: key32(7),
};

/** Every optional feature on, every secret distinctive. */
export const fullEnv: Readonly<Record<string, string>> = {
  ...baseEnv,
  SVC_PORT: "9090",
  SVC_POOL_MAX: "20",
  SVC_ADMIN_DATABASE_URL: "postgres://operator:operator-password-88c1f0@db.internal:5432/svc",
  SVC_ADMIN_POOL_MAX: "2",
  SVC_SIGNIN_ALLOWLIST: "alice, Bob carol",
  SVC_SELF_SERVE_SIGNUP: "true",
  SVC_INSECURE_COOKIES: "1",
  SVC_TRUSTED_PROXY_HOPS: "2",
  SVC_MIGRATE: "1",
  SVC_VERSION: "1.4.2",
  SVC_COMMIT: "abc1234",
  SVC_CODEHOST_APP_ID: "123456",
  SVC_CODEHOST_APP_PRIVATE_KEY: PEM,
  SVC_CODEHOST_APP_WEBHOOK_SECRET: "app-webhook-secret-4e7b19c2",
  SVC_CODEHOST_APP_INSTALL_URL: "https://github.com/apps/svc-control-plane/installations/new",
  SVC_SIGNUP_URL: "https://example.com/signup",
  SVC_SITE_ORIGIN: "https://example.com, http://localhost:8788",
  SVC_LEAD_NOTIFY_EMAIL: "sales@example.com",
  SVC_CODEHOST_API_BASE: "https://ghe.example.com/api/v3",
  SVC_MODEL_PRICES: "my-model=1.25/5,gpt-4o=2/8",
  SVC_PROVIDER_KEY_SECRET: key32(1),
  SVC_PROVIDER_KEY_SECRETS: `v2=${key32(2)}`,
  SVC_PROVIDER_KEY_VERSION: "v2",
  SVC_RESEAL_DATABASE_URL: "postgres://resealer:reseal-password-61ad07@db.internal:5432/svc",
  SVC_BILLING_SECRET_KEY: "billing-secret-key-0a9f3e77",
  SVC_BILLING_WEBHOOK_SECRET: "billing-webhook-secret-c41d2b80",
  SVC_BILLING_PRICE_TEAM: "price_team_123",
  SVC_BILLING_PRICE_ENTERPRISE: "price_enterprise_456",
  SVC_BILLING_API_BASE: "http://127.0.0.1:8101",
  SVC_HOSTED_REQUIRED_PLAN: "enterprise",
  SVC_CONSOLE_DIR: "/srv/console",
  SVC_LICENSE_KEY: licenceToken(),
  SVC_ORG: "acme",
  SVC_LICENSE_PUBLIC_KEYS: `k1=${LICENCE_PUBLIC_KEY}`,
  SVC_ENTERPRISE_BASE_URL: "https://sso.example.com",
  SVC_LICENSE_REVOKED: "lic-000",
  SVC_MAIL_API_KEY: "mail-api-key-7c3e90d1",
  SVC_MAIL_FROM: "Control Plane <no-reply@example.com>",
  SVC_PUBLIC_URL: "https://cp.example.com",
  SVC_ENV_URL: "https://preview.example.com",
  SVC_MAIL_BASE_URL: "http://127.0.0.1:8102",
  SVC_PRODUCT_NAME: "Acme Cloud",
  SVC_MAINTENANCE_DATABASE_URL: "postgres://maint:maintenance-password-93be5a@db.internal:5432/svc",
  SVC_EVENT_RETENTION_MONTHS: "13",
  SVC_EVENT_ARCHIVE_DIR: "archive/events",
  SVC_FAILURE_RETENTION_DAYS: "7",
  SVC_FAILURE_STORE: "off",
  SVC_CMS_MODEL_API_KEY: "cms-model-api-key-1f6a8e02",
  SVC_ANALYTICS_SURROGATE_SECRET: "ab".repeat(32),
  SVC_ANALYTICS_OPERATOR_ORG: "acme",
  SVC_ANALYTICS_RETENTION_DAYS: "90",
  SVC_ANALYTICS_VENDOR_REGION: "eu",
  SVC_ANALYTICS_VENDOR_PROJECT_KEY: "analytics-project-key-55e0c3",
  SVC_DATABASE_WS_PROXY: "127.0.0.1:54330",
  SVC_OBJECT_LOCATION_HINT: "enam",
  SVC_INGEST_RATE_LIMIT: "500/5000",
  SVC_MESSAGES_PROVIDER_API_BASE: "http://127.0.0.1:8103",
  SVC_CHAT_PROVIDER_API_BASE: "http://127.0.0.1:8104",
  SVC_ANALYTICS_VENDOR_API_BASE: "http://127.0.0.1:8105",
};

/** Values in `fullEnv` that must never be printed. */
export const SECRET_NAMES = [
  "SVC_DATABASE_URL",
  "SVC_MIGRATION_DATABASE_URL",
  "SVC_ADMIN_DATABASE_URL",
  "SVC_MAINTENANCE_DATABASE_URL",
  "SVC_RESEAL_DATABASE_URL",
  "SVC_CODEHOST_CLIENT_SECRET",
  "SVC_CODEHOST_APP_PRIVATE_KEY",
  "SVC_CODEHOST_APP_WEBHOOK_SECRET",
  "SVC_EE_SSO_KEY",
  "SVC_PROVIDER_KEY_SECRET",
  "SVC_PROVIDER_KEY_SECRETS",
  "SVC_BILLING_SECRET_KEY",
  "SVC_BILLING_WEBHOOK_SECRET",
  "SVC_LICENSE_KEY",
  "SVC_LICENSE_PUBLIC_KEYS",
  "SVC_MAIL_API_KEY",
  "SVC_CMS_MODEL_API_KEY",
  "SVC_ANALYTICS_SURROGATE_SECRET",
  "SVC_ANALYTICS_VENDOR_PROJECT_KEY",
] as const;

/** `baseEnv` with `changes` applied; `undefined` removes a variable. */
export function envWith(changes: Readonly<Record<string, string | undefined>>, from = baseEnv): Record<string, string> {
  const env: Record<string, string> = { ...from };
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}
