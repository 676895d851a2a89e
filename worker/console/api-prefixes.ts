// The Worker's own addresses. wrangler.toml's [assets].run_worker_first is written from this list
// (scripts/generate.ts), so Workers Assets never answer them with the console; every other GET is a page.
export const API_PREFIXES = [
  "/rpc/*",
  "/v1/*",
  "/auth/*",
  "/webhooks/*",
  "/health",
  "/readyz",
  "/openapi.json",
  "/metrics",
  "/mcp",
  "/.well-known/*",
  "/admin*",
  "/exports/*",
  "/byok/*",
  "/console/api/*",
  "/px/*",
  "/sso",
  "/sso/*",
  "/scim/*",
  // The local stack's cron route (worker/cron-names.ts LOCAL_CRON_PATH); elsewhere it answers 404.
  "/local/*",
] as const;

/** Whether `path` is one of the Worker's own addresses, as Workers Assets match the patterns above. */
export function isApiPath(path: string): boolean {
  return API_PREFIXES.some((pattern) =>
    pattern.endsWith("/*")
      ? path === pattern.slice(0, -2) || path.startsWith(pattern.slice(0, -1))
      : pattern.endsWith("*")
        ? path.startsWith(pattern.slice(0, -1))
        : path === pattern,
  );
}
