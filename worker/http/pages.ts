// The few HTML pages sign-in answers with (a refused sign-in is a page for a person, not JSON), and the
// one document shell every page the Worker renders shares. Every page is written with hono's `html`
// template, which escapes each interpolated value; `raw` marks only constant markup of our own (the CSS).
import { html, raw } from "hono/html";
import type { Config } from "../config/types";
import { BASE_CSS } from "../shared/styles";

/** Markup built with `html`: a value of this type is already escaped, a plain string never is. */
export type Html = ReturnType<typeof html>;

/** The document shell: the shared look, plus `css` (constant) for a page that needs more. */
export const htmlDocument = (title: string, body: Html, css = "") =>
  html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title><style>${raw(BASE_CSS + css)}</style></head>
<body>${body}</body></html>`;

/** A titled panel: the pages sign-in, device approval, consent and the console's fallback show. */
export const page = (title: string, body: Html) => htmlDocument(title, html`<main class="narrow"><div class="panel"><h1>${title}</h1>${body}</div></main>`);

export function refusedSignInPage(config: Config, login: string): Html {
  // The sign-up link is offered only where an allowlist is what refused the person.
  const signup =
    config.signIn.signupUrl && config.signIn.allowlist !== null ? html`<p><a class="button" href="${config.signIn.signupUrl}">Ask for access</a></p>` : "";
  return page("Sign-in refused", html`<p>The account <strong>${login}</strong> may not sign in to ${config.mail.productName}.</p>${signup}`);
}

export function failedSignInPage(reason: string): Html {
  return page("Sign-in did not complete", html`<p>${reason}</p><p><a class="button" href="/auth/signin">Try again</a></p>`);
}
