// The verification page a person opens from the CLI: enter (or confirm) the user code, choose the
// organization, approve or deny. The page posts with the session's CSRF header, like any change.
import { escapeHtml, page } from "../signin/pages";

export function signInFirstPage(): string {
  return page("Sign in to continue", `<p>Approving a command-line sign-in needs you to be signed in.</p><p><a class="button" href="/auth/signin">Sign in</a> then open this page again.</p>`);
}

export function verificationPage(userCode: string, organizations: Array<{ id: string; slug: string; role: string }>): string {
  if (organizations.length === 0) return page("No organization yet", "<p>You belong to no organization, so there is nothing to sign the command line in to.</p>");
  const options = organizations.map((org) => `<option value="${escapeHtml(org.id)}">${escapeHtml(org.slug)} (${escapeHtml(org.role)})</option>`).join("");
  return page(
    "Sign in the command line",
    `<form id="device"><p><label>Code <input name="userCode" value="${escapeHtml(userCode)}" autocomplete="off" required></label></p>
<p><label>Organization <select name="orgId">${options}</select></label></p>
<p><button name="approve" value="true">Approve</button> <button class="danger" name="approve" value="false">Deny</button></p></form>
<p id="result" role="status"></p>
<script>
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
    body: JSON.stringify({ userCode: form.get("userCode"), orgId: form.get("orgId"), approve: event.submitter.value === "true" }),
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
