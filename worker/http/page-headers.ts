// The headers every HTML page of the control plane carries, set here once for all of them (the
// sign-in, consent, device and operator pages, the console's index.html when the Worker serves it)
// and, for the console as Workers Assets serve it, in console/public/_headers (a test holds the two
// equal). No page may be framed (clickjacking); scripts run only from our origin, or inline with this
// response's nonce. Styles may be inline: the pages and the console insert their own stylesheet.
import type { MiddlewareHandler } from "hono";
import { base64url } from "./hash";
import type { AppContext, AppEnv } from "./context";
import { contentSecurityPolicy, FRAME_OPTIONS } from "./page-policy";

/** This response's script nonce, made on first use: a page with an inline script puts it on the tag. */
export function scriptNonce(c: AppContext): string {
  let nonce = c.get("scriptNonce");
  if (!nonce) c.set("scriptNonce", (nonce = base64url(crypto.getRandomValues(new Uint8Array(16)))));
  return nonce;
}

export const pageHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  if (!(c.res.headers.get("content-type") ?? "").toLowerCase().startsWith("text/html")) return;
  c.res.headers.set("content-security-policy", contentSecurityPolicy(c.get("scriptNonce")));
  c.res.headers.set("x-frame-options", FRAME_OPTIONS);
};
