// The browser session cookie: HttpOnly, SameSite=Lax, Secure unless SVC_INSECURE_COOKIES=1.
// A Secure cookie carries the `__Host-` prefix, so the browser holds it only as this origin set it
// (Secure, Path=/, no Domain): no sibling subdomain can plant or shadow it. Browsers refuse the
// prefix without Secure, so SVC_INSECURE_COOKIES=1 (local HTTP) uses the plain name; each
// configuration reads only its own name.
import { getCookie, setCookie, deleteCookie } from "hono/cookie";
import type { AppContext } from "../http/context";

export const SESSION_COOKIE = "svc_session";
const THIRTY_DAYS = 30 * 24 * 3600;

/** The name a cookie has under this configuration: `__Host-<name>` when Secure, else `<name>`. */
export const cookieName = (c: AppContext, name: string) => (c.var.config.server.insecureCookies ? name : `__Host-${name}`);

/** Every cookie of ours: HttpOnly, Path=/, no Domain, Secure unless SVC_INSECURE_COOKIES=1. */
export const cookieAttributes = (c: AppContext, sameSite: "Lax" | "Strict") => ({
  httpOnly: true,
  sameSite,
  secure: !c.var.config.server.insecureCookies,
  path: "/",
});

const attributes = (c: AppContext) => cookieAttributes(c, "Lax");

export const readSessionCookie = (c: AppContext) => getCookie(c, cookieName(c, SESSION_COOKIE)) ?? null;

export const writeSessionCookie = (c: AppContext, token: string) =>
  setCookie(c, cookieName(c, SESSION_COOKIE), token, { ...attributes(c), maxAge: THIRTY_DAYS });

export const clearSessionCookie = (c: AppContext) => deleteCookie(c, cookieName(c, SESSION_COOKIE), attributes(c));

/** A short-lived cookie that binds an OAuth `state` (or similar) to this browser. */
export function writeBindingCookie(c: AppContext, name: string, value: string, seconds: number): void {
  setCookie(c, cookieName(c, name), value, { ...attributes(c), maxAge: seconds });
}

export function takeBindingCookie(c: AppContext, name: string): string | null {
  const value = getCookie(c, cookieName(c, name)) ?? null;
  deleteCookie(c, cookieName(c, name), attributes(c));
  return value;
}
