// GET /: who is signed in, their organizations, and sign-in or sign-out. Stands in for the console,
// which arrives later (Workers Assets), so a person can try sign-in locally.
import type { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { personContext } from "../people/context";
import { escapeHtml, page } from "../signin/pages";
import { readSessionCookie } from "./cookie";
import { resolveSession } from "./store";

const SIGN_OUT_SCRIPT = `<script>
document.getElementById("signout").addEventListener("click", async () => {
  const { csrfToken } = await (await fetch("/auth/session")).json();
  await fetch("/auth/signout", { method: "POST", headers: { "x-svc-csrf": csrfToken } });
  location.reload();
});
</script>`;

export function registerHome(app: Hono<AppEnv>): void {
  app.get("/", async (c) => {
    const token = readSessionCookie(c);
    const session = token ? await resolveSession(c.var.database().connect, token) : null;
    const product = c.var.config.mail.productName;
    if (!session) return c.html(page(product, `<p><a href="/auth/signin">Sign in with the code host</a></p>`));
    const { person, organizations } = await personContext(c.var.database().connect, session.personId);
    const installUrl = c.var.config.codehost.installUrl;
    const orgs = organizations.length
      ? `<ul>${organizations.map((org) => `<li>${escapeHtml(org.slug)}: ${escapeHtml(org.role)} (${escapeHtml(org.plan)})</li>`).join("")}</ul>`
      : `<p>You belong to no organization yet: install the App on an account, or ask to be invited.</p>` +
        (installUrl ? `<p><a href="${escapeHtml(installUrl)}">Install the App</a></p>` : "");
    return c.html(
      page(product, `<p>Signed in as <strong>${escapeHtml(person.login ?? person.email ?? person.id)}</strong>.</p>${orgs}<p><button id="signout">Sign out</button></p>${SIGN_OUT_SCRIPT}`),
    );
  });
}
