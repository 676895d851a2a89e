// The few HTML pages sign-in answers with (a refused sign-in is a page for a person, not JSON).
import type { Config } from "../config/types";
import { BASE_CSS } from "../console/look";

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char]!);

export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(title)}</title><style>${BASE_CSS}</style></head>
<body><main class="narrow"><div class="panel"><h1>${escape(title)}</h1>${body}</div></main></body></html>`;
}

export function refusedSignInPage(config: Config, login: string): string {
  // The sign-up link is offered only where an allowlist is what refused the person.
  const signup = config.signIn.signupUrl && config.signIn.allowlist !== null
    ? `<p><a class="button" href="${escape(config.signIn.signupUrl)}">Ask for access</a></p>`
    : "";
  return page("Sign-in refused", `<p>The account <strong>${escape(login)}</strong> may not sign in to ${escape(config.mail.productName)}.</p>${signup}`);
}

export function failedSignInPage(reason: string): string {
  return page("Sign-in did not complete", `<p>${escape(reason)}</p><p><a class="button" href="/auth/signin">Try again</a></p>`);
}

export { escape as escapeHtml };
