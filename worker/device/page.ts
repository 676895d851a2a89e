// The verification page a person opens from the CLI. Without a code it asks for the one the terminal
// shows. With a code (typed, or carried by the CLI's link) it shows what asks: the client as it names
// itself (unverified), every scope in words, the code itself; approving needs the box "this code
// matches the one my terminal shows" ticked, a deliberate act a link alone cannot make for the
// person. The decision posts with the session's CSRF header; the inline script runs under this
// response's nonce (worker/http/page-headers.ts).
import { html } from "hono/html";
import { PERMISSION_WORDS } from "../auth";
import type { Permission } from "../shared/permissions";
import { type Html, page } from "../http/pages";
import { displayUserCode, type PendingRequest } from "./flow";

export function signInFirstPage(): Html {
  return page(
    "Sign in to continue",
    html`<p>Approving a command-line sign-in needs you to be signed in.</p><p><a class="button" href="/auth/signin">Sign in</a> then open this page again.</p>`,
  );
}

const codeForm = html`<form id="enter-code" method="get" action="/auth/device">
<p><label>The code your terminal shows <input name="user_code" autocomplete="off" autocapitalize="characters" required></label></p>
<p><button>Continue</button></p></form>`;

/** No code yet: the person types the one their terminal shows. */
export const enterCodePage = () => page("Sign in the command line", codeForm);

/** The code names no pending sign-in. */
export const unknownCodePage = () =>
  page("No such sign-in", html`<p class="danger">No pending sign-in has that code; it may have expired. Check the code your terminal shows.</p>${codeForm}`);

const scopeItem = (scope: Permission) => html`<li>${PERMISSION_WORDS[scope]} <span class="muted">(<code>${scope}</code>)</span></li>`;

export function verificationPage(request: PendingRequest, organizations: Array<{ id: string; slug: string; role: string }>, nonce: string): Html {
  if (organizations.length === 0)
    return page("No organization yet", html`<p>You belong to no organization, so there is nothing to sign the command line in to.</p>`);
  const options = organizations.map((org) => html`<option value="${org.id}">${org.slug} (${org.role})</option>`);
  const code = displayUserCode(request.userCode);
  const client = request.clientId
    ? html`<strong id="client">${request.clientId}</strong> <span class="warn">(as the client names itself: unverified)</span>`
    : html`<strong id="client">a client that gave no name</strong>`;
  const scopes = request.scopes.length
    ? html`<p>It asks for a token that may, in the organization you choose and as far as your role there allows:</p><ul id="scopes">${request.scopes.map(scopeItem)}</ul>`
    : html`<p id="scopes">It asks for a token with no permission at all.</p>`;
  return page(
    "Sign in the command line",
    html`<p>A command-line client, ${client}, asks to sign in as you.</p>
<p>Code: <strong id="code">${code}</strong></p>
${scopes}
<p class="warn">Approve only a sign-in you started yourself, in your own terminal, just now. Someone who sent you this link may be trying to get a token for your account.</p>
<form id="device"><input type="hidden" name="userCode" value="${code}">
<p><label>Organization <select name="orgId">${options}</select></label></p>
<p><label><input type="checkbox" name="codeConfirmed" required> The code ${code} matches the one my terminal shows</label></p>
<p><button name="approve" value="true">Approve</button> <button class="danger" name="approve" value="false" formnovalidate>Deny</button></p></form>
<p id="result" role="status"></p>
<script nonce="${nonce}">
document.getElementById("device").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const result = document.getElementById("result");
  result.className = "muted";
  result.textContent = "Working...";
  const session = await (await fetch("/auth/session")).json();
  const response = await fetch("/auth/device/approve", {
    method: "POST",
    headers: { "content-type": "application/json", "x-svc-csrf": session.csrfToken },
    body: JSON.stringify({ userCode: form.get("userCode"), orgId: form.get("orgId"), approve: event.submitter.value === "true", codeConfirmed: form.get("codeConfirmed") === "on" }),
  });
  const body = await response.json();
  result.className = response.ok ? "ok" : "danger";
  result.textContent = response.ok
    ? (body.approved ? "Approved: return to the command line." : "Denied.")
    : body.error;
});
</script>`,
  );
}
