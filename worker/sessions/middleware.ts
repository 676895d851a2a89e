// Routes for a browser: a live session is required, and a change (any method but GET/HEAD/OPTIONS)
// also needs the session's CSRF token in x-svc-csrf.
import type { MiddlewareHandler } from "hono";
import type { AppContext, AppEnv } from "../http/context";
import { Refusal } from "../http/refusal";
import { readSessionCookie } from "./cookie";
import { checkCsrf, CSRF_HEADER, isMutation } from "./csrf";
import { resolveSession, type LiveSession } from "./store";

export async function authenticateSession(c: AppContext): Promise<LiveSession> {
  const token = readSessionCookie(c);
  const session = token ? await resolveSession(c.var.database().connect, token) : null;
  if (!session) throw new Refusal("unauthenticated", "Sign in first: this needs a browser session.");
  if (isMutation(c.req.method)) await checkCsrf(session.token, c.req.header(CSRF_HEADER));
  return session;
}

export const requireSession: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set("session", await authenticateSession(c));
  await next();
};
