// Browser sign-in through the code host: GET /auth/signin sends the browser to the authorize page
// with a state bound to it by a cookie; GET /auth/callback checks that state, exchanges the code,
// reads the account and completes the sign-in. Both are rate limited per client address.
import type { Hono } from "hono";
import { CodehostUnreachable } from "../codehost";
import { CodehostListFailed } from "../codehost";
import { addressBucket, clientAddressOf as addressOf } from "../http/client-address";
import { constantTimeEqual } from "../http/constant-time";
import type { AppEnv } from "../http/context";
import { enforceRateLimit, PER_ADDRESS_RULE } from "../http/rate-limit";
import { takeBindingCookie, writeBindingCookie, writeSessionCookie } from "../sessions";
import { base64url } from "../http/hash";
import { completeSignIn } from "./complete";
import { authorizeUrl, exchangeCode, fetchAccount } from "../codehost";
import { failedSignInPage, refusedSignInPage } from "../http/pages";
import { planGate } from "../http/plan-gate";

const STATE_COOKIE = "svc_oauth_state";
const STATE_SECONDS = 600;
/** Where to send the browser after signing in, when a page sent it to sign in first (the consent page). */
const RETURN_COOKIE = "svc_return_to";

/** Only a path of this service's own `/auth/` pages: never another site, never a protocol-relative URL. */
const safeReturn = (path: string | null | undefined) => (path && /^\/auth\/[^\\]*$/.test(path) && !path.startsWith("//") ? path : null);

export function registerSignIn(app: Hono<AppEnv>): void {
  app.get("/auth/signin", planGate("reachable"), async (c) => {
    await enforceRateLimit(c.env, addressBucket("signin", addressOf(c)), PER_ADDRESS_RULE, 1, "Too many sign-in attempts from this address.");
    const state = base64url(crypto.getRandomValues(new Uint8Array(24)));
    writeBindingCookie(c, STATE_COOKIE, state, STATE_SECONDS);
    const back = safeReturn(c.req.query("return"));
    if (back) writeBindingCookie(c, RETURN_COOKIE, back, STATE_SECONDS);
    return c.redirect(authorizeUrl(c.var.config, state), 302);
  });

  app.get("/auth/callback", planGate("reachable"), async (c) => {
    const address = addressOf(c);
    await enforceRateLimit(c.env, addressBucket("oauth-callback", address), PER_ADDRESS_RULE, 1, "Too many sign-in attempts from this address.");
    const expected = takeBindingCookie(c, STATE_COOKIE);
    const { code, state } = c.req.query();
    if (!expected || !state || !constantTimeEqual(state, expected)) {
      return c.html(failedSignInPage("This sign-in was not started in this browser, or it took too long. Start again."), 400);
    }
    if (!code) return c.html(failedSignInPage("The code host sent no authorization code back."), 400);
    const config = c.var.config;
    try {
      const accessToken = await exchangeCode(config, code);
      const account = accessToken ? await fetchAccount(config, accessToken) : null;
      if (!accessToken || !account) return c.html(failedSignInPage("The code host did not confirm who you are. Start again."), 401);
      const result = await completeSignIn(c.var.database().connect, config, account, accessToken, {
        address,
        userAgent: c.req.header("user-agent") ?? null,
      });
      if (!result.ok) return c.html(refusedSignInPage(config, account.login), 403);
      writeSessionCookie(c, result.sessionToken);
      return c.redirect(safeReturn(takeBindingCookie(c, RETURN_COOKIE)) ?? "/", 302);
    } catch (error) {
      if (error instanceof CodehostUnreachable) return c.html(failedSignInPage("The code host could not be reached. Try again in a moment."), 502);
      if (error instanceof CodehostListFailed)
        return c.html(failedSignInPage("The code host did not list all your organizations. Try again in a moment."), 502);
      throw error;
    }
  });
}
