// Routes for a browser: a live session is required, and a change (any method but GET/HEAD/OPTIONS)
// also needs the session's CSRF token in x-svc-csrf.
import type { MiddlewareHandler } from "hono";
import type * as z from "zod";
import type { AppContext, AppEnv } from "../http/context";
import { validate } from "../http/input";
import { Refusal } from "../http/refusal";
import { readSessionCookie } from "./cookie";
import { checkCsrf, CSRF_HEADER, isMutation } from "./csrf";
import { resolveSession } from "./store";
import type { LiveSession } from "../http/caller";

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

/**
 * A browser route's input whose organization it names (so authorization follows it), validated after
 * the caller is known: refused input is answered 401 to a request without a live session (403
 * without the CSRF header on a change), so a stranger learns nothing of the route's schema. A caller
 * whose input is valid pays nothing: `asSessionMember` then finds the session with the work.
 */
export async function validateForSession<S extends z.ZodType>(c: AppContext, schema: S, input: unknown): Promise<z.output<S>> {
  try {
    return validate(schema, input);
  } catch (refused) {
    if (refused instanceof Refusal) await authenticateSession(c);
    throw refused;
  }
}
