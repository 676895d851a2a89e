// Every environment variable the control plane reads, in the order of the spec's tables, so
// `config check` and the docs can list them and the parser cannot read a name missing here.

export const REQUIRED_VARIABLES = ["SVC_DATABASE_URL", "SVC_CODEHOST_CLIENT_ID", "SVC_CODEHOST_CLIENT_SECRET", "SVC_CODEHOST_REDIRECT_URI"] as const;

/** Read only by the enterprise entry point; the community one ignores them. */
export const ENTERPRISE_VARIABLES = [
  "SVC_EE_SSO_KEY",
  "SVC_LICENSE_KEY",
  "SVC_ORG",
  "SVC_LICENSE_PUBLIC_KEYS",
  "SVC_ENTERPRISE_BASE_URL",
  "SVC_LICENSE_REVOKED",
] as const;

export const OPTIONAL_VARIABLES = [
  "SVC_PORT",
  "SVC_POOL_MAX",
  "SVC_APP_BASE_URL",
  "SVC_ADMIN_DATABASE_URL",
  "SVC_ADMIN_POOL_MAX",
  "SVC_SIGNIN_ALLOWLIST",
  "SVC_SELF_SERVE_SIGNUP",
  "SVC_INSECURE_COOKIES",
  "SVC_TRUSTED_PROXY_HOPS",
  "SVC_MIGRATE",
  "SVC_MIGRATION_DATABASE_URL",
  "SVC_VERSION",
  "SVC_COMMIT",
  "SVC_CODEHOST_APP_ID",
  "SVC_CODEHOST_APP_PRIVATE_KEY",
  "SVC_CODEHOST_APP_WEBHOOK_SECRET",
  "SVC_CODEHOST_APP_INSTALL_URL",
  "SVC_SIGNUP_URL",
  "SVC_SITE_ORIGIN",
  "SVC_LEAD_NOTIFY_EMAIL",
  "SVC_CODEHOST_API_BASE",
  "SVC_MODEL_PRICES",
  "SVC_PROVIDER_KEY_SECRET",
  "SVC_PROVIDER_KEY_SECRETS",
  "SVC_PROVIDER_KEY_VERSION",
  "SVC_RESEAL_DATABASE_URL",
  "SVC_BILLING_SECRET_KEY",
  "SVC_BILLING_WEBHOOK_SECRET",
  "SVC_BILLING_PRICE_TEAM",
  "SVC_BILLING_PRICE_ENTERPRISE",
  "SVC_BILLING_API_BASE",
  "SVC_HOSTED_REQUIRED_PLAN",
  "SVC_OPERATOR_SETS_PLAN",
  "SVC_CONSOLE_DIR",
  ...ENTERPRISE_VARIABLES,
  "SVC_MAIL_API_KEY",
  "SVC_MAIL_FROM",
  "SVC_PUBLIC_URL",
  "SVC_ENV_URL",
  "SVC_MAIL_BASE_URL",
  "SVC_PRODUCT_NAME",
  "SVC_MAINTENANCE_DATABASE_URL",
  "SVC_EVENT_RETENTION_MONTHS",
  "SVC_EVENT_ARCHIVE_DIR",
  "SVC_FAILURE_RETENTION_DAYS",
  "SVC_FAILURE_STORE",
  "SVC_CMS_MODEL_API_KEY",
  "SVC_ANALYTICS_SURROGATE_SECRET",
  "SVC_ANALYTICS_OPERATOR_ORG",
  "SVC_ANALYTICS_RETENTION_DAYS",
  "SVC_ANALYTICS_VENDOR_REGION",
  "SVC_ANALYTICS_VENDOR_PROJECT_KEY",
] as const;

/** This implementation's own variables, beyond the spec's tables (documented in the README). */
export const EXTENSION_VARIABLES = [
  // `host:port` of the local WebSocket-to-TCP bridge; unset in production (Neon's own proxy).
  "SVC_DATABASE_WS_PROXY",
  // The region new Durable Objects start in (a location hint: `enam`, `weur`, ...), near the database.
  "SVC_OBJECT_LOCATION_HINT",
  // Event ingestion allowance per organization: `<events per second>/<burst>`, or `off`.
  "SVC_INGEST_RATE_LIMIT",
  // Where the model proxy forwards to: the providers' public APIs unless set (tests, self-hosting).
  "SVC_MESSAGES_PROVIDER_API_BASE",
  "SVC_CHAT_PROVIDER_API_BASE",
  // Where hosted-usage analytics go instead of the region's capture host (tests, a self-hosted vendor).
  "SVC_ANALYTICS_VENDOR_API_BASE",
] as const;

export const CONFIG_VARIABLES = [...REQUIRED_VARIABLES, ...OPTIONAL_VARIABLES, ...EXTENSION_VARIABLES] as const;

export type VariableName = (typeof CONFIG_VARIABLES)[number];
