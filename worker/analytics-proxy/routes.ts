// /px/*: the analytics proxy, so the site's pages send the vendor's capture calls to the control
// plane's own host. Mounted only when SVC_ANALYTICS_VENDOR_REGION is set (otherwise every /px path
// answers 404). The upstream is the region's host from a closed set of two (worker/config/analytics.ts;
// SVC_ANALYTICS_VENDOR_API_BASE points it at a fake for tests). Only the allowlisted paths below are
// forwarded, anything else under /px is 404; nothing of the browser goes upstream except the body and
// its content-type (no cookie, no authorization, no visitor address); an upstream redirect is refused,
// never followed; each forwarded path answers a CORS preflight for the origins of SVC_SITE_ORIGIN.
import { assertNoTransaction } from "../../db/transaction";
import type { Hono } from "hono";
import type { AppContext, AppEnv } from "../http/context";
import { BODY_LIMITS, readBytes } from "../http/input";
import { Refusal } from "../http/refusal";
import { grantOrigin, originStanding, preflight } from "../http/site-cors";
import { log } from "../log";
import { planGate } from "../http/plan-gate";

export const PROXY_PREFIX = "/px";

/** The vendor's capture and feature-flag calls its browser library makes, each taking a POST. */
export const FORWARDED_PATHS: ReadonlySet<string> = new Set(["/e/", "/i/v0/e/", "/batch/", "/capture/", "/decide/", "/flags/"]);

/**
 * The types the allowlisted calls answer with (all JSON, some clients' older calls plain text). Any
 * other type goes back as application/octet-stream, with nosniff: a vendor answering HTML or script
 * must never have it served as such from this origin.
 */
const SAFE_ANSWER_TYPES: ReadonlySet<string> = new Set(["application/json", "text/plain"]);

const answerType = (vendorType: string | null) => {
  if (vendorType === null) return "application/json";
  return SAFE_ANSWER_TYPES.has(vendorType.split(";")[0]!.trim().toLowerCase()) ? vendorType : "application/octet-stream";
};

/** Seconds to wait for the vendor. */
const UPSTREAM_TIMEOUT_MS = 10_000;

const notServed = (message = "Nothing is served at this address.") => new Refusal("not_found", message);

/** The allowlisted upstream path `requestPath` names (with or without its trailing slash), or null. */
export function forwardedPath(requestPath: string): string | null {
  if (!requestPath.startsWith(PROXY_PREFIX + "/")) return null;
  const rest = requestPath.slice(PROXY_PREFIX.length);
  const withSlash = rest.endsWith("/") ? rest : rest + "/";
  return FORWARDED_PATHS.has(withSlash) ? withSlash : null;
}

async function forward(c: AppContext, upstreamBase: string, path: string): Promise<Response> {
  const { standing, origin } = originStanding(c);
  if (standing === "foreign") throw new Refusal("origin_not_allowed");
  const body = await readBytes(c, BODY_LIMITS.default);
  const headers = new Headers();
  const contentType = c.req.header("content-type");
  if (contentType) headers.set("content-type", contentType);
  const upstream = new URL(upstreamBase.replace(/\/+$/, "") + path);
  upstream.search = new URL(c.req.url).search;
  assertNoTransaction("The analytics vendor");
  const answer = await fetch(upstream, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS) }).catch(
    (error: Error) => {
      log("warn", "px.upstream_unreachable", { path, errorClass: error.name });
      return null;
    },
  );
  if (answer === null) throw new Refusal("analytics_upstream_failed");
  if (answer.status >= 300 && answer.status < 400) {
    await answer.body?.cancel();
    log("warn", "px.upstream_redirect_refused", { path, status: answer.status });
    throw new Refusal("analytics_upstream_failed", "The analytics vendor answered with a redirect, which is not followed.");
  }
  // Only the body and a safe type come back: no cookie or other header of the vendor reaches the page.
  const response = new Response(answer.body, {
    status: answer.status,
    headers: { "content-type": answerType(answer.headers.get("content-type")), "x-content-type-options": "nosniff" },
  });
  if (standing === "granted" && origin !== null) grantOrigin(response.headers, origin);
  else response.headers.append("vary", "Origin");
  return response;
}

export function registerAnalyticsProxy(app: Hono<AppEnv>): void {
  app.all(`${PROXY_PREFIX}/*`, planGate("reachable"), async (c) => {
    const upstreamBase = c.var.config.analytics.vendorApiBase;
    if (c.var.config.analytics.vendorRegion === null || upstreamBase === null) throw notServed();
    const path = forwardedPath(c.req.path);
    if (path === null) throw notServed();
    if (c.req.method === "OPTIONS") return preflight(c, "POST");
    if (c.req.method !== "POST") throw notServed();
    return forward(c, upstreamBase, path);
  });
}
