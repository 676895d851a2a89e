// GET /auth/session (the CSRF token, who is signed in, their organizations, whether the assistant is on), POST /auth/signout, GET /auth/sessions.
import type { Hono } from "hono";
import { inTransaction } from "../../db/transaction";
import type { AppEnv } from "../http/context";
import { readPersonContext } from "../people";
import { operatingOrganization } from "../analytics";
import { clearSessionCookie } from "./cookie";
import { csrfTokenFor } from "./csrf";
import { requireSession } from "./middleware";
import { endChannelsIn, SIGNED_OUT } from "../live-channel";
import { listSessions, organizationsOf, signOut } from "./store";
import { planGate } from "../http/plan-gate";

export function registerSessions(app: Hono<AppEnv>): void {
  app.get("/auth/session", planGate("reachable"), requireSession, async (c) => {
    const { token, personId } = c.var.session;
    const operatorSlug = c.var.config.analytics.operatorOrg;
    const { person, organizations } = await inTransaction(c.var.database().connect, { lookups: { person_id: personId } }, async (tx) => {
      const context = await readPersonContext(tx, personId);
      // Which of their organizations is the operating one (installation analytics), so the console
      // offers the dashboard there only; the dashboard's own check decides who reads it.
      const operating = operatorSlug !== null && context.organizations.length > 0 ? await operatingOrganization(tx, operatorSlug, { pin: false }) : null;
      return { ...context, organizations: context.organizations.map((org) => ({ ...org, operating: org.id === operating })) };
    });
    // A person with no organization waits for an installation or an invitation; where the App's
    // install address is configured, they are offered it.
    const waiting = organizations.length === 0;
    // Whether the website assistant is on here (its model key set: worker/assistant's assistantIsOn,
    // read from the configuration since the assistant depends on sessions), so the console draws its
    // owners' navigation whole at once instead of adding an entry once a later call answers.
    const assistantOn = c.var.config.cmsModelApiKey !== null;
    return c.json({
      csrfToken: await csrfTokenFor(token),
      person,
      organizations,
      waiting,
      installUrl: waiting ? c.var.config.codehost.installUrl : null,
      assistantOn,
    });
  });

  app.post("/auth/signout", planGate("reachable"), requireSession, async (c) => {
    const { id, personId } = c.var.session;
    const organizations = await inTransaction(c.var.database().connect, { lookups: { person_id: personId } }, async (tx) => {
      await signOut(tx, id);
      return organizationsOf(tx, personId);
    });
    // The session's open consoles stop hearing changes at once, in every organization.
    await endChannelsIn(c.env, organizations, { sessionId: id }, SIGNED_OUT);
    clearSessionCookie(c);
    return c.json({ signedOut: true });
  });

  app.get("/auth/sessions", planGate("reachable"), requireSession, async (c) => {
    const { id, personId } = c.var.session;
    const sessions = await inTransaction(c.var.database().connect, { lookups: { person_id: personId } }, (tx) => listSessions(tx, personId, id));
    return c.json({ sessions });
  });
}
