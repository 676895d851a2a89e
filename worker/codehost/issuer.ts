// Where workflow identity tokens come from. The issuer is pinned by configuration, never read from a
// token: a token naming another issuer is refused before its keys would be looked for anywhere.
import type { Config } from "../config/types";

/** The provider's public API, whose Actions identity issuer has its own host. */
const PUBLIC_API_BASE = "https://api.github.com";
const PUBLIC_ISSUER = "https://token.actions.githubusercontent.com";

/**
 * The public API's issuer is token.actions.githubusercontent.com; with any other API base (an
 * enterprise server at `https://host/api/v3`, the test fake) it is that host's `/_services/token`.
 */
export function identityIssuer(apiBase: string): string {
  const base = apiBase.replace(/\/+$/, "");
  return base === PUBLIC_API_BASE ? PUBLIC_ISSUER : `${new URL(base).origin}/_services/token`;
}

export const jwksUrl = (issuer: string) => `${issuer}/.well-known/jwks`;

// The audience identity tokens must be minted for: this deployment's public origin. One function, so
// the exchange checks exactly what GET /v1/oidc/bindings tells workflows to ask for.
export function identityAudience(config: Config, requestUrl: string): string {
  const base = config.server.appBaseUrl ?? config.enterprise?.baseUrl ?? new URL(requestUrl).origin;
  return base.replace(/\/+$/, "");
}
