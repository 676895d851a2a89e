// The typed configuration the rest of the Worker reads instead of the raw environment.
// Optional features are `null` when off, so a caller cannot use a half-configured one.

/** The regions a Durable Object can be asked to start in (Cloudflare's location hints). */
export const LOCATION_HINTS = ["wnam", "enam", "sam", "weur", "eeur", "apac", "apac-ne", "apac-se", "oc", "afr", "me"] as const;
export type LocationHint = (typeof LOCATION_HINTS)[number];

export type Edition = "enterprise" | "community";

/** Exit status 2 is reserved for an unusable licence key; everything else is 1. */
export interface ConfigError {
  variable: string;
  message: string;
  exitStatus: 1 | 2;
}

export type ConfigResult = { ok: true; config: Config; warnings: string[] } | { ok: false; errors: ConfigError[]; warnings: string[] };

export interface Config {
  edition: Edition;
  build: { version: string; commit: string };
  server: ServerConfig;
  database: DatabaseConfig;
  codehost: CodehostConfig;
  signIn: SignInConfig;
  /** Null when no sealing key is configured: saving a model-provider key is refused. */
  providerKeys: SealingKeys | null;
  /** Built-in prices with SVC_MODEL_PRICES laid over them, keyed by model name. */
  modelPrices: ReadonlyMap<string, ModelPrice>;
  /** The upstream APIs the model proxy forwards to. */
  modelProviders: ModelProvidersConfig;
  billing: BillingConfig;
  mail: MailConfig;
  events: {
    retentionMonths: number | null;
    archiveDir: string | null;
    /** Null: ingestion is not rate limited (SVC_INGEST_RATE_LIMIT=off). */
    ingestRateLimit: { refillPerSecond: number; capacity: number } | null;
  };
  failures: { store: boolean; retentionDays: number };
  /** Server-side model key of the owner-only website assistant. */
  cmsModelApiKey: string | null;
  analytics: AnalyticsConfig;
  /** Null in the community edition, which ignores every enterprise variable. */
  enterprise: EnterpriseConfig | null;
}

export interface ServerConfig {
  port: number;
  trustedProxyHops: number;
  insecureCookies: boolean;
  consoleDir: string;
  appBaseUrl: string | null;
  /** Normalized origins (`scheme://host[:port]`) allowed to post cross-origin. */
  siteOrigins: string[];
  /** SVC_ENV_URL, else SVC_PUBLIC_URL. */
  envUrl: string | null;
}

export interface DatabaseConfig {
  url: string;
  poolMax: number;
  /** Null: no operator portal, `/admin` refuses every request. */
  adminUrl: string | null;
  adminPoolMax: number;
  migrate: boolean;
  migrationUrl: string | null;
  /** SVC_MAINTENANCE_DATABASE_URL, else SVC_MIGRATION_DATABASE_URL; null: partitions are not kept ahead. */
  maintenanceUrl: string | null;
  resealUrl: string | null;
  /** `host:port` of the local WebSocket-to-TCP bridge; null in production. */
  wsProxy: string | null;
  /** Where new Durable Objects start (SVC_OBJECT_LOCATION_HINT): near the database; null: near their first caller. */
  objectLocationHint: LocationHint | null;
}

export interface CodehostConfig {
  clientId: string;
  clientSecret: string;
  /** Kept exactly as given: it must match the OAuth application byte for byte. */
  redirectUri: string;
  apiBase: string;
  app: CodehostApp | null;
  installUrl: string | null;
}

export interface CodehostApp {
  appId: string;
  /** PEM text with real newlines, ending in one newline. */
  privateKeyPem: string;
  webhookSecret: string;
}

export interface SignInConfig {
  /** Null: anyone may sign in. Empty: nobody may. Logins are lower-cased (the code host ignores case). */
  allowlist: string[] | null;
  signupUrl: string | null;
  selfServeSignup: boolean;
}

export interface SealingKeys {
  /** Every key that can open a sealed value, by version. */
  keys: ReadonlyMap<string, Uint8Array>;
  /** The version new values are sealed under; always a key of `keys`. */
  sealingVersion: string;
}

/** US dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
}

export interface ModelProvidersConfig {
  /** The messages API (`POST /v1/messages`), without a trailing `/v1`. */
  messagesApiBase: string;
  /** The chat-completions API (`POST /v1/chat/completions`), without a trailing `/v1`. */
  chatApiBase: string;
}

export interface BillingConfig {
  /** Null when billing is off (none, or only some, of the three variables set). */
  provider: BillingProvider | null;
  apiBase: string;
  hostedRequiredPlan: "enterprise" | null;
  operatorSetsPlan: boolean;
}

export interface BillingProvider {
  secretKey: string;
  webhookSecret: string;
  teamPrice: string;
  /** Null: checkout for the enterprise plan is refused before any billing call. */
  enterprisePrice: string | null;
}

export interface MailConfig {
  /** Null unless SVC_MAIL_API_KEY, SVC_MAIL_FROM and SVC_PUBLIC_URL are all set. */
  magicLink: { apiKey: string; from: string; publicUrl: string } | null;
  baseUrl: string;
  productName: string;
  leadNotifyEmail: string | null;
}

export interface AnalyticsConfig {
  /** Hex text of the 32-byte secret; null records no analytics at all. */
  surrogateSecret: string | null;
  operatorOrg: string | null;
  retentionDays: number | null;
  /** Null: the `/px` proxy is not mounted. */
  vendorRegion: "us" | "eu" | null;
  /** Null unless the key, the region and the surrogate secret are all set: nothing is sent. */
  vendorProjectKey: string | null;
  /** The capture API: SVC_ANALYTICS_VENDOR_API_BASE, else the region's host; null without a region. */
  vendorApiBase: string | null;
}

export interface EnterpriseConfig {
  ssoKey: Uint8Array;
  /** SVC_ENTERPRISE_BASE_URL, else SVC_APP_BASE_URL. */
  baseUrl: string;
  licence: Licence;
}

/**
 * none: no key. valid: before `exp`. grace: past `exp`, still working for `grace` seconds (with a
 * warning). expired: past the grace period (402, settings kept). wrong_org: issued to another
 * organization than SVC_ORG. revoked: its `lid` is in SVC_LICENSE_REVOKED.
 */
export type LicenceState = "none" | "valid" | "grace" | "expired" | "wrong_org" | "revoked";

/**
 * A parsed, NOT yet verified licence. The signature is checked later (WebCrypto is async);
 * `state` is as of parse time, so request-time code recomputes it with `licenceState`.
 */
export type Licence =
  | { state: "none" }
  | {
      state: Exclude<LicenceState, "none">;
      org: string;
      revoked: string[];
      token: LicenceToken;
      /** Base64 text of the trusted public key whose id the token's header names. */
      publicKey: string;
    };

export interface LicenceToken {
  header: { alg: "EdDSA"; kid: string };
  payload: LicencePayload;
  /** `header.payload` exactly as received: the bytes the signature covers. */
  signingInput: string;
  signature: Uint8Array;
  /** The whole compact JWS as received (verified with jose). */
  compact: string;
}

export interface LicencePayload {
  lid: string;
  sub: string;
  /** Unix seconds. */
  exp: number;
  /** Seconds after `exp` the licence keeps working (state `grace`); 0 when the payload has none. */
  grace: number;
  /** What the licence permits (the spec's "licence permissions"), e.g. `sso`, `scim`. */
  features: string[];
}
