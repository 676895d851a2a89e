// The front door of worker/sessions/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { asSessionMember } from "./authority";
export { cookieAttributes, cookieName, readSessionCookie, takeBindingCookie, writeBindingCookie, writeSessionCookie } from "./cookie";
export { CSRF_HEADER, checkCsrf, csrfTokenFor } from "./csrf";
export { requireSession, validateForSession } from "./middleware";
export { beginSession, findLiveSession, organizationsOf, resolveSession, signOutEverywhere } from "./store";
export type { Client } from "./store";
