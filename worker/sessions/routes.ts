// GET /auth/session (the CSRF token and who is signed in), POST /auth/signout, GET /auth/sessions.
import type { Hono } from "hono";
import { inTransaction } from "../../db/transaction";
import type { AppEnv } from "../http/context";
import { personContext } from "../people/store";
import { clearSessionCookie } from "./cookie";
import { csrfTokenFor } from "./csrf";
import { requireSession } from "./middleware";
import { listSessions, signOut } from "./store";
import { planGate } from "../billing/gate";

export function registerSessions(app: Hono<AppEnv>): void {
  app.get("/auth/session", planGate("reachable"), requireSession, async (c) => {
    const { token, personId } = c.var.session;
    const context = await personContext(c.var.database().connect, personId);
    // A person with no organization waits for an installation or an invitation; where the App's
    // install address is configured, they are offered it.
    const waiting = context.organizations.length === 0;
    return c.json({ csrfToken: await csrfTokenFor(token), ...context, waiting, installUrl: waiting ? c.var.config.codehost.installUrl : null });
  });

  app.post("/auth/signout", planGate("reachable"), requireSession, async (c) => {
    const { id, personId } = c.var.session;
    await inTransaction(c.var.database().connect, { lookups: { person_id: personId } }, (tx) => signOut(tx, id));
    clearSessionCookie(c);
    return c.json({ signedOut: true });
  });

  app.get("/auth/sessions", planGate("reachable"), requireSession, async (c) => {
    const { id, personId } = c.var.session;
    const sessions = await inTransaction(c.var.database().connect, { lookups: { person_id: personId } }, (tx) => listSessions(tx, personId, id));
    return c.json({ sessions });
  });
}
