// POST /auth/magic-link (ask for a link) and GET /auth/magic-link/callback (use it). Served only when
// SVC_MAIL_API_KEY, SVC_MAIL_FROM and SVC_PUBLIC_URL are all set; rate limited per client address.
import type { Hono } from "hono";
import * as z from "zod";
import { acceptInvitationsFor } from "../invitations";
import { addressBucket, clientAddressOf as addressOf } from "../http/client-address";
import type { AppContext, AppEnv } from "../http/context";
import { readBody } from "../http/input";
import { enforceRateLimit, PER_ADDRESS_RULE } from "../http/rate-limit";
import { Refusal } from "../http/refusal";
import { personForEmail } from "../people";
import { beginSession } from "../sessions";
import { writeSessionCookie } from "../sessions";
import { failedSignInPage } from "../http/pages";
import { requestMagicLink, useMagicLink } from "./flow";
import { planGate } from "../http/plan-gate";

const MagicLinkRequest = z.strictObject({ email: z.email().max(320) });

function requireMail(c: AppContext): void {
  if (!c.var.config.mail.magicLink) throw new Refusal("not_found", "Sign-in by e-mail is not offered here.");
}

export function registerMagicLinks(app: Hono<AppEnv>): void {
  app.post("/auth/magic-link", planGate("reachable"), async (c) => {
    requireMail(c);
    await enforceRateLimit(c.env, addressBucket("magic-link", addressOf(c)), PER_ADDRESS_RULE, 1, "Too many sign-in links asked for from this address.");
    const { email } = await readBody(c, MagicLinkRequest);
    await requestMagicLink(c.var.database().connect, c.var.config, email.toLowerCase());
    return c.json({ sent: "If this address was invited, a sign-in link is on its way." }, 202);
  });

  app.get("/auth/magic-link/callback", planGate("reachable"), async (c) => {
    requireMail(c);
    const address = addressOf(c);
    await enforceRateLimit(c.env, addressBucket("signin", address), PER_ADDRESS_RULE, 1, "Too many sign-in attempts from this address.");
    const connect = c.var.database().connect;
    const email = await useMagicLink(connect, c.req.query("token") ?? "");
    if (!email) return c.html(failedSignInPage("This sign-in link was already used or has expired. Ask for a new one."), 401);
    const personId = await personForEmail(connect, email);
    await acceptInvitationsFor(connect, { id: personId, label: email }, email);
    writeSessionCookie(
      c,
      await beginSession(connect, { id: personId, label: email }, { address, userAgent: c.req.header("user-agent") ?? null }, "magic-link"),
    );
    return c.redirect("/", 302);
  });
}
