// The consent page a person sees when a model client asks to act for them: which client, where it
// sends the answer, the organization it will act in, what it may do there; allow or deny. A client
// registers itself (RFC 7591) and chooses its own name, so the name is shown as an unverified claim
// and the address the answer goes to (its origin) stands out: that is what the person can check. The form
// posts (no script) with the session's CSRF token as a field, since a plain form sends no header.
import { html } from "hono/html";
import { type Html, page } from "../http/pages";

/** The authorization request as the page carries it into the decision. */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  state: string | null;
  resource: string | null;
  scope: string | null;
}

const hidden = (name: string, value: string | null) => (value === null ? "" : html`<input type="hidden" name="${name}" value="${value}">`);

export function consentPage(options: {
  clientName: string;
  request: AuthorizationRequest;
  organizations: Array<{ id: string; slug: string; role: string }>;
  csrfToken: string;
  productName: string;
  /** What the tools do and the permissions each needs (worker/mcp/tool-set.ts). */
  abilities: Array<{ title: string; permissions: string[] }>;
}): Html {
  const { clientName, request, organizations } = options;
  if (organizations.length === 0) {
    return page("No organization yet", html`<p>You belong to no organization, so there is nothing to connect a model client to.</p>`);
  }
  const destination = (() => {
    try {
      const url = new URL(request.redirectUri);
      return url.host ? `${url.protocol}//${url.host}` : url.protocol;
    } catch {
      return request.redirectUri;
    }
  })();
  const options_ = organizations.map((org) => html`<option value="${org.id}">${org.slug} (${org.role})</option>`);
  const abilities = options.abilities.map(({ title, permissions }) => html`<li>${title} <span class="muted">(${permissions.join(", ")})</span></li>`);
  return page(
    "Connect a model client",
    html`<p>An <strong class="warn" id="client-unverified">unverified application</strong> that calls itself <strong id="client-name">${clientName}</strong> asks to act for you in ${options.productName}. Nothing confirms that name: it chose it itself.</p>
<p>It will receive the answer at <strong><code id="client-origin">${destination}</code></strong>. Allow only if you started this connection and know that address.</p>
<form id="consent" method="post" action="/auth/mcp/authorize">
${hidden("client_id", request.clientId)}${hidden("redirect_uri", request.redirectUri)}${hidden("code_challenge", request.codeChallenge)}
<input type="hidden" name="code_challenge_method" value="S256"><input type="hidden" name="response_type" value="code">
${hidden("state", request.state)}${hidden("resource", request.resource)}${hidden("scope", request.scope)}${hidden("csrf", options.csrfToken)}
<p><label>Organization <select name="orgId">${options_}</select></label></p>
<p>In that organization it may, as far as your role there allows at the moment of each call:</p>
<ul>${abilities}</ul>
<p class="muted">You can disconnect it at any time on the console's Connected clients page.</p>
<p><button name="decision" value="allow">Allow</button> <button class="danger" name="decision" value="deny">Deny</button></p>
</form>`,
  );
}

export function authorizationErrorPage(reason: string): Html {
  return page("This connection cannot go on", html`<p>${reason}</p><p>Start the connection again from the model client.</p>`);
}
