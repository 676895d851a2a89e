// The audience identity tokens must be minted for: this deployment's public origin. One function, so
// the exchange checks exactly what GET /v1/oidc/bindings tells workflows to ask for.
import type { Config } from "../config/types";

export function identityAudience(config: Config, requestUrl: string): string {
  const base = config.server.appBaseUrl ?? config.enterprise?.baseUrl ?? new URL(requestUrl).origin;
  return base.replace(/\/+$/, "");
}
