// The operator portal's script (served from the console's assets; the page is worker/operators/page.ts):
// a sign-in form, then the organizations, leads, failure groups and operators, each read through the
// admin.* procedures, so the page can do nothing the procedures refuse. Plain DOM, no build step.
const $ = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== false && value != null) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) if (child != null) node.append(child instanceof Node ? child : String(child));
  return node;
};
const main = document.querySelector("main");
const status = document.getElementById("status");
let csrf = null;
const say = (text, kind = "ok") => {
  status.className = kind;
  status.textContent = text;
};
const when = (iso) => (iso ? new Date(iso).toLocaleString() : "never");

async function rpc(name, input, mutation = false) {
  const response = mutation
    ? await fetch("/rpc/" + name, { method: "POST", headers: { "content-type": "application/json", "x-svc-csrf": csrf }, body: JSON.stringify(input ?? {}) })
    : await fetch("/rpc/" + name + (input === undefined ? "" : "?input=" + encodeURIComponent(JSON.stringify(input))));
  const body = await response.json().catch(() => null);
  if (response.status === 401) {
    showSignIn();
    throw new Error("Sign in again.");
  }
  if (!response.ok)
    throw new Error(body?.error?.message || "The request failed (" + response.status + "), request id " + response.headers.get("x-request-id") + ".");
  return body.result.data;
}

function showSignIn(message) {
  document.getElementById("who").textContent = "";
  document.getElementById("nav").hidden = true;
  const login = $("input", { name: "login", autocomplete: "username", required: true });
  const password = $("input", { name: "password", type: "password", autocomplete: "current-password", required: true });
  const form = $(
    "form",
    {
      class: "panel",
      onsubmit: async (event) => {
        event.preventDefault();
        say("Signing in…", "muted");
        const response = await fetch("/admin/signin", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ login: login.value, password: password.value }),
        });
        const body = await response.json().catch(() => ({}));
        if (!response.ok) return say(body.error || "Sign-in failed.", "danger");
        csrf = body.csrfToken;
        say("Signed in as " + body.login + ".");
        start(body.login);
      },
    },
    $("h1", {}, "Operator sign-in"),
    $("label", {}, "Login", login),
    $("label", {}, "Password", password),
    $("div", {}, $("button", { type: "submit" }, "Sign in")),
  );
  main.replaceChildren(form);
  if (message) say(message, "muted");
}

const PAGES = { organizations: showOrganizations, leads: showLeads, failures: showFailures, operators: showOperators };
let overview = null;

async function start(login) {
  document.getElementById("nav").hidden = false;
  overview = await rpc("admin.overview");
  document.getElementById("who").replaceChildren(
    $("span", { class: "muted" }, "Operator "),
    $("strong", {}, login),
    " · licence: ",
    $("span", { id: "licence" }, overview.licence ?? "community edition"),
    " ",
    $(
      "button",
      {
        class: "secondary",
        onclick: async () => {
          await fetch("/admin/signout", { method: "POST", headers: { "x-svc-csrf": csrf } });
          showSignIn("Signed out.");
        },
      },
      "Sign out",
    ),
  );
  route();
}

function route() {
  const name = location.pathname.split("/")[2] || "organizations";
  for (const link of document.querySelectorAll("#nav a")) {
    if (link.dataset.page === name) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  (PAGES[name] || showOrganizations)().catch((error) => say(error.message, "danger"));
}
document.getElementById("nav").addEventListener("click", (event) => {
  const link = event.target.closest("a");
  if (!link) return;
  event.preventDefault();
  history.pushState(null, "", link.href);
  route();
});
addEventListener("popstate", route);

async function showOrganizations(search = "") {
  const query = $("input", { type: "search", name: "search", value: search, placeholder: "slug or name" });
  const form = $(
    "form",
    {
      class: "row",
      onsubmit: (event) => {
        event.preventDefault();
        showOrganizations(query.value).catch((error) => say(error.message, "danger"));
      },
    },
    $("label", {}, "Search organizations", query),
    $("button", { type: "submit" }, "Search"),
  );
  const { organizations } = await rpc("admin.organizations", search ? { search } : {});
  const act = (label, name, input, done, kind = "secondary") =>
    $(
      "button",
      {
        class: kind,
        onclick: async (event) => {
          event.target.disabled = true;
          try {
            await rpc(name, input, true);
            say(done);
            await showOrganizations(query.value);
          } catch (error) {
            say(error.message, "danger");
            event.target.disabled = false;
          }
        },
      },
      label,
    );
  const rows = organizations.map((org) => {
    const plan = $(
      "select",
      { "aria-label": "Plan of " + org.slug },
      ...["free", "team", "enterprise"].map((p) => $("option", { value: p, selected: p === org.plan }, p)),
    );
    const setPlan = $(
      "button",
      {
        class: "secondary",
        onclick: async (event) => {
          event.target.disabled = true;
          try {
            await rpc("admin.setPlan", { organizationId: org.id, plan: plan.value }, true);
            say(org.slug + " is on the " + plan.value + " plan.");
            await showOrganizations(query.value);
          } catch (error) {
            say(error.message, "danger");
            event.target.disabled = false;
          }
        },
      },
      "Set plan",
    );
    const state = org.suspended
      ? $("span", { class: "badge danger" }, "suspended" + (org.suspendedReason ? " (" + org.suspendedReason + ")" : ""))
      : $("span", { class: "badge ok" }, "active");
    const because = org.suspendedBecause ? $("div", {}, "Reason: " + org.suspendedBecause) : null;
    return $(
      "tr",
      { "data-slug": org.slug },
      $("td", {}, $("strong", {}, org.slug), $("div", { class: "muted" }, org.name)),
      $("td", {}, overview.planSettable ? $("div", { class: "row" }, plan, setPlan) : org.plan),
      $("td", {}, org.members),
      $("td", {}, org.usage.environments + " environments", $("div", { class: "muted" }, org.usage.events30d + " events in 30 days")),
      $("td", {}, state, org.suspendedAt ? $("div", { class: "muted" }, "since " + when(org.suspendedAt)) : null, because),
      $(
        "td",
        {},
        org.suspended
          ? act("Lift suspension", "admin.liftSuspension", { organizationId: org.id }, org.slug + " is no longer suspended.")
          : suspendForm(org, () => showOrganizations(query.value)),
      ),
    );
  });
  main.replaceChildren(
    $("h1", {}, "Organizations"),
    form,
    organizations.length === 0
      ? $("p", { class: "muted" }, search ? "No organization matches." : "No organizations yet.")
      : $(
          "table",
          {},
          $("thead", {}, $("tr", {}, ...["Organization", "Plan", "Members", "Usage", "State", ""].map((h) => $("th", { scope: "col" }, h)))),
          $("tbody", {}, rows),
        ),
  );
}

/**
 * Suspending asks first: a reason (required, up to 500 characters; the organization's members read it
 * in their console) and a confirmation of what stops. The button only opens the form.
 */
function suspendForm(org, done) {
  const reason = $("textarea", { name: "reason", required: true, maxlength: 500, rows: 2 });
  const confirmed = $("input", { type: "checkbox", name: "confirm", required: true });
  const submit = $("button", { type: "submit", class: "danger" }, "Suspend " + org.slug);
  const form = $(
    "form",
    {
      hidden: true,
      onsubmit: async (event) => {
        event.preventDefault();
        submit.disabled = true;
        try {
          await rpc("admin.suspend", { organizationId: org.id, reason: reason.value }, true);
          say(org.slug + " is suspended.");
          await done();
        } catch (error) {
          say(error.message, "danger");
          submit.disabled = false;
        }
      },
    },
    $("label", {}, "Reason (its members will read it)", reason),
    $(
      "label",
      {},
      confirmed,
      " Suspend " + org.slug + ": its engines' events and new work are refused until the suspension is lifted; command claims, reading and exports still work.",
    ),
    submit,
  );
  const open = $(
    "button",
    {
      class: "danger",
      "aria-expanded": "false",
      onclick: () => {
        form.hidden = !form.hidden;
        open.setAttribute("aria-expanded", String(!form.hidden));
        if (!form.hidden) reason.focus();
      },
    },
    "Suspend…",
  );
  return $("div", {}, open, form);
}

async function showFailures() {
  const { groups } = await rpc("admin.failures");
  main.replaceChildren(
    $("h1", {}, "Failure groups"),
    $(
      "p",
      { class: "muted" },
      "Unexpected failures (500), grouped; kept " +
        overview.failureRetentionDays +
        " days after their last occurrence." +
        (overview.failureStore ? "" : " The store is off (SVC_FAILURE_STORE)."),
    ),
    groups.length === 0
      ? $("p", {}, "No failures recorded.")
      : $(
          "table",
          {},
          $("thead", {}, $("tr", {}, ...["Code", "Route", "Error", "Occurrences", "First seen", "Last seen"].map((h) => $("th", { scope: "col" }, h)))),
          $(
            "tbody",
            {},
            groups.map((group) =>
              $(
                "tr",
                {},
                $("td", {}, $("code", {}, group.code)),
                $("td", {}, $("code", {}, group.route)),
                $("td", {}, group.errorType, $("details", {}, $("summary", {}, "sample"), $("pre", {}, JSON.stringify(group.sample, null, 2)))),
                $("td", {}, group.occurrences),
                $("td", {}, when(group.firstSeenAt)),
                $("td", {}, when(group.lastSeenAt)),
              ),
            ),
          ),
        ),
  );
}

async function showLeads() {
  const [{ leads }, { applications }] = await Promise.all([rpc("admin.leads"), rpc("admin.applications")]);
  const table = (heads, rows) => $("table", {}, $("thead", {}, $("tr", {}, ...heads.map((h) => $("th", { scope: "col" }, h)))), $("tbody", {}, rows));
  const contact = (row) => $("td", {}, $("strong", {}, row.name), $("div", { class: "muted" }, row.email));
  main.replaceChildren(
    $("h1", {}, "Leads and applications"),
    $("p", { class: "muted" }, "What visitors sent through the site's forms, newest first."),
    $("h2", {}, "Contact requests"),
    leads.length === 0
      ? $("p", {}, "No contact requests yet.")
      : table(
          ["Received", "From", "Company", "Role", "Team size", "Message"],
          leads.map((lead) =>
            $(
              "tr",
              {},
              $("td", {}, when(lead.receivedAt)),
              contact(lead),
              $("td", {}, lead.company),
              $("td", {}, lead.role ?? ""),
              $("td", {}, lead.teamSize ?? ""),
              $("td", {}, lead.message ?? ""),
            ),
          ),
        ),
    $("h2", {}, "Applications"),
    applications.length === 0
      ? $("p", {}, "No applications yet.")
      : table(
          ["Received", "From", "Company", "Code host login", "Team size", "Use case"],
          applications.map((application) =>
            $(
              "tr",
              {},
              $("td", {}, when(application.receivedAt)),
              contact(application),
              $("td", {}, application.company ?? ""),
              $("td", {}, application.codehostLogin ?? ""),
              $("td", {}, application.teamSize ?? ""),
              $("td", {}, application.useCase),
            ),
          ),
        ),
  );
}

async function showOperators() {
  const { operators } = await rpc("admin.operators");
  main.replaceChildren(
    $("h1", {}, "Operators"),
    $("p", { class: "muted" }, "Added, reset and removed with the command line: npm run --silent svc -- admin ..."),
    $(
      "table",
      {},
      $("thead", {}, $("tr", {}, ...["Login", "Added", "Last sign-in"].map((h) => $("th", { scope: "col" }, h)))),
      $(
        "tbody",
        {},
        operators.map((operator) => $("tr", {}, $("td", {}, operator.login), $("td", {}, when(operator.createdAt)), $("td", {}, when(operator.lastSignInAt)))),
      ),
    ),
  );
}

fetch("/admin/session").then(async (response) => {
  if (response.status === 401) return showSignIn();
  const body = await response.json().catch(() => ({}));
  if (!response.ok) return main.replaceChildren($("p", { class: "danger", role: "alert" }, body.error || "The portal is unavailable."));
  csrf = body.csrfToken;
  start(body.login);
});
