// Cross-origin access for the routes that name SVC_SITE_ORIGIN (spec, Authentication rule 12):
// POST /v1/leads, POST /v1/applications, POST /v1/site/events and the /px analytics proxy. Only an
// exact origin of the list is granted, echoed alone (never a wildcard, never credentials); a request
// carrying any other browser origin gets no grant and is refused before its body is read. A request
// with no Origin (a server, curl) or from the control plane's own origin needs no grant.
import type { Hono, MiddlewareHandler } from "hono";
import type { AppContext, AppEnv } from "./context";
import { Refusal } from "./refusal";
import { planGate } from "./plan-gate";

const FOREIGN = "Cross-origin requests here are accepted only from the site's own origins (SVC_SITE_ORIGIN).";

/** How long a browser may keep a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = "600";

type Standing = "granted" | "same-origin" | "no-origin" | "foreign";

/** Where the request's Origin stands against SVC_SITE_ORIGIN. */
export function originStanding(c: AppContext): { standing: Standing; origin: string | null } {
  const origin = c.req.header("origin") ?? null;
  if (origin === null) return { standing: "no-origin", origin };
  if (c.var.config.server.siteOrigins.includes(origin)) return { standing: "granted", origin };
  if (origin === new URL(c.req.url).origin) return { standing: "same-origin", origin };
  return { standing: "foreign", origin };
}

/** Puts the grant for exactly `origin` on `headers` (no credentials header: cookies are never invited). */
export function grantOrigin(headers: Headers, origin: string): void {
  headers.set("access-control-allow-origin", origin);
  headers.append("vary", "Origin");
}

/** Route middleware: refuses a foreign origin, grants an allowed one on whatever the route answers. */
export const siteCors: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { standing, origin } = originStanding(c);
  if (standing === "foreign") throw new Refusal("origin_not_allowed", FOREIGN);
  await next();
  if (standing === "granted" && origin !== null) grantOrigin(c.res.headers, origin);
  else c.res.headers.append("vary", "Origin");
};

/** The answer to a CORS preflight for a route taking `methods`: 204 with the grant, or 403 without one. */
export function preflight(c: AppContext, methods: string): Response {
  const { standing, origin } = originStanding(c);
  if (standing !== "granted" || origin === null) throw new Refusal("origin_not_allowed", FOREIGN);
  const headers = new Headers({
    "access-control-allow-methods": methods,
    "access-control-allow-headers": "content-type",
    "access-control-max-age": PREFLIGHT_MAX_AGE,
  });
  grantOrigin(headers, origin);
  return new Response(null, { status: 204, headers });
}

/** Mounts the preflight of `path` (a POST route naming SVC_SITE_ORIGIN). */
export function registerSitePreflight(app: Hono<AppEnv>, path: string, methods = "POST"): void {
  app.options(path, planGate("reachable"), (c) => preflight(c, methods));
}
