// The browser session cookie: HttpOnly, SameSite=Lax, Secure unless SVC_INSECURE_COOKIES=1.
import { getCookie, setCookie, deleteCookie } from "hono/cookie";
import type { AppContext } from "../http/context";

export const SESSION_COOKIE = "svc_session";
const THIRTY_DAYS = 30 * 24 * 3600;

const attributes = (c: AppContext) => ({ httpOnly: true, sameSite: "Lax" as const, secure: !c.var.config.server.insecureCookies, path: "/" });

export const readSessionCookie = (c: AppContext) => getCookie(c, SESSION_COOKIE) ?? null;

export const writeSessionCookie = (c: AppContext, token: string) => setCookie(c, SESSION_COOKIE, token, { ...attributes(c), maxAge: THIRTY_DAYS });

export const clearSessionCookie = (c: AppContext) => deleteCookie(c, SESSION_COOKIE, attributes(c));

/** A short-lived cookie that binds an OAuth `state` (or similar) to this browser. */
export function writeBindingCookie(c: AppContext, name: string, value: string, seconds: number): void {
  setCookie(c, name, value, { ...attributes(c), maxAge: seconds });
}

export function takeBindingCookie(c: AppContext, name: string): string | null {
  const value = getCookie(c, name) ?? null;
  deleteCookie(c, name, attributes(c));
  return value;
}
