// Cross-origin access for the routes the static site posts to (spec: SVC_SITE_ORIGIN; Authentication
// rule 12): exact origin match only, one origin echoed, never a wildcard, never credentials. Unset:
// no other origin may post. A request with no Origin (not from a browser) or from the control plane's
// own origin is not cross-origin and passes.
import type { MiddlewareHandler } from "hono";
import type { AppContext, AppEnv } from "./context";
import { Refusal } from "./refusal";

const PREFLIGHT_MAX_AGE_SECONDS = 600;

function crossOrigin(c: AppContext): string | null {
  const origin = c.req.header("origin");
  if (!origin || origin === new URL(c.req.url).origin) return null;
  return origin;
}

const refuse = () => new Refusal("forbidden", "This origin may not call this address from a browser; only the site's configured origins (SVC_SITE_ORIGIN) may.");

/**
 * Mount on both the route (any method) and `OPTIONS` of its path: answers a preflight from an allowed
 * origin with 204 and the allow headers, refuses any other origin with 403 before the body is read,
 * and marks an allowed origin's answer with that one origin.
 */
export function siteCors(methods: readonly string[] = ["POST"]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const origin = crossOrigin(c);
    const allowed = origin !== null && c.var.config.server.siteOrigins.includes(origin);
    c.header("Vary", "Origin", { append: true });
    if (c.req.method === "OPTIONS") {
      if (!allowed) throw refuse();
      return c.body(null, 204, {
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Allow-Methods": methods.join(", "),
        "Access-Control-Allow-Headers": "content-type",
        "Access-Control-Max-Age": String(PREFLIGHT_MAX_AGE_SECONDS),
      });
    }
    if (origin !== null && !allowed) throw refuse();
    await next();
    if (allowed) c.res.headers.set("Access-Control-Allow-Origin", origin);
  };
}
