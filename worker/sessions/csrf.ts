// The CSRF token is derived from the session's own secret: only a page that can read
// GET /auth/session (same origin, with the cookie) learns it; nothing extra is stored.
import { constantTimeEqual } from "../http/constant-time";
import { Refusal } from "../http/refusal";
import { base64url } from "../http/hash";

export const CSRF_HEADER = "x-svc-csrf";

export async function csrfTokenFor(sessionToken: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`csrf:${sessionToken}`));
  return base64url(new Uint8Array(digest));
}

export const isMutation = (method: string) => !["GET", "HEAD", "OPTIONS"].includes(method.toUpperCase());

export async function checkCsrf(sessionToken: string, header: string | undefined): Promise<void> {
  if (!header) throw new Refusal("csrf_failed", `A change made with a browser session needs the ${CSRF_HEADER} header from GET /auth/session.`);
  if (!constantTimeEqual(header, await csrfTokenFor(sessionToken))) {
    throw new Refusal("csrf_failed", `The ${CSRF_HEADER} header does not match this session; fetch it again from GET /auth/session.`);
  }
}
