// The operator portal's script (the page is worker/operators/page.ts, which loads it as
// /operator-portal.js; `npm run build:console` builds it with the console): a sign-in form, then the
// organizations, leads, failure groups and operators, each read through the admin.* procedures with
// the console's typed tRPC client, so the page can do nothing the procedures refuse, and a procedure
// change that breaks it breaks the type check. Plain DOM: four tables and two forms need no framework.
import { TRPCClientError } from "@trpc/client";
import { currentCsrfToken, describeFailure, type Outputs, rpc, setCsrfToken } from "./rpc";

type Organization = Outputs["admin"]["organizations"]["organizations"][number];
type Attributes = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;
type Child = Node | string | number | null | undefined | Child[];

interface DomElement {
  append(...nodes: Array<Node | string>): void;
  setAttribute(name: string, value: string): void;
  addEventListener(type: string, listener: (event: Event) => void): void;
}

/** An element with its attributes (`on...`: a listener) and children. */
function $<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  // The DOM's own methods: the Worker's types, which this build also sees, name an Element of their own.
  const element = node as unknown as DomElement;
  for (const [key, value] of Object.entries(attributes)) {
    if (typeof value === "function") element.addEventListener(key.slice(2), value);
    else if (value !== false && value != null) element.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of (children as unknown[]).flat(Infinity) as Array<Node | string | number | null | undefined>)
    if (child != null) element.append(child instanceof Node ? child : String(child));
  return node;
}

const main = document.querySelector("main")!;
const status = document.getElementById("status")!;
const nav = document.getElementById("nav")!;
const who = document.getElementById("who")!;

const say = (text: string, kind = "ok") => {
  status.className = kind;
  status.textContent = text;
};
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "never");

/** A procedure's answer; a session that ended shows the sign-in form, any other failure its sentence. */
async function call<T>(procedure: () => Promise<T>): Promise<T> {
  try {
    return await procedure();
  } catch (error) {
    if (error instanceof TRPCClientError && (error.data as { httpStatus?: number } | undefined)?.httpStatus === 401) {
      showSignIn();
      throw new Error("Sign in again.");
    }
    const { message, requestId } = describeFailure(error);
    throw new Error(requestId ? `${message} (request id ${requestId})` : message);
  }
}

const failed = (error: unknown) => say(error instanceof Error ? error.message : String(error), "danger");

function showSignIn(message?: string) {
  who.textContent = "";
  nav.hidden = true;
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
        const body = (await response.json().catch(() => ({}))) as { error?: string; csrfToken?: string; login?: string };
        if (!response.ok) return say(body.error || "Sign-in failed.", "danger");
        setCsrfToken(body.csrfToken!);
        say(`Signed in as ${body.login}.`);
        void start(body.login!).catch(failed);
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

const PAGES: Record<string, () => Promise<void>> = {
  organizations: () => showOrganizations(),
  leads: showLeads,
  failures: showFailures,
  operators: showOperators,
};
let overview: Outputs["admin"]["overview"];

async function start(login: string) {
  nav.hidden = false;
  overview = await call(() => rpc.admin.overview.query());
  who.replaceChildren(
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
          await fetch("/admin/signout", { method: "POST", headers: { "x-svc-csrf": currentCsrfToken() } });
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
  for (const link of nav.querySelectorAll<HTMLAnchorElement>("a")) {
    if (link.dataset.page === name) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  (PAGES[name] ?? PAGES.organizations!)().catch(failed);
}
nav.addEventListener("click", (event) => {
  const link = (event.target as Element).closest("a");
  if (!link) return;
  event.preventDefault();
  history.pushState(null, "", link.href);
  route();
});
addEventListener("popstate", route);

/** A button that runs `work`, says `done`, and shows the organizations again; disabled while it runs. */
function action(label: string, work: () => Promise<unknown>, done: () => string, again: () => Promise<void>, kind = "secondary") {
  return $(
    "button",
    {
      class: kind,
      onclick: async (event) => {
        const button = event.currentTarget as HTMLButtonElement;
        button.disabled = true;
        try {
          await call(work);
          say(done());
          await again();
        } catch (error) {
          failed(error);
          button.disabled = false;
        }
      },
    },
    label,
  );
}

async function showOrganizations(search = "") {
  const query = $("input", { type: "search", name: "search", value: search, placeholder: "slug or name" });
  const again = () => showOrganizations(query.value);
  const form = $(
    "form",
    {
      class: "row",
      onsubmit: (event) => {
        event.preventDefault();
        again().catch(failed);
      },
    },
    $("label", {}, "Search organizations", query),
    $("button", { type: "submit" }, "Search"),
  );
  const { organizations } = await call(() => rpc.admin.organizations.query(search ? { search } : {}));
  const rows = organizations.map((org) => {
    const plan = $("select", { "aria-label": `Plan of ${org.slug}` }, ...PLANS.map((p) => $("option", { value: p, selected: p === org.plan }, p)));
    const setPlan = action(
      "Set plan",
      () => rpc.admin.setPlan.mutate({ organizationId: org.id, plan: plan.value as (typeof PLANS)[number] }),
      () => `${org.slug} is on the ${plan.value} plan.`,
      again,
    );
    const state = org.suspended
      ? $("span", { class: "badge danger" }, `suspended${org.suspendedReason ? ` (${org.suspendedReason})` : ""}`)
      : $("span", { class: "badge ok" }, "active");
    const because = org.suspendedBecause ? $("div", {}, `Reason: ${org.suspendedBecause}`) : null;
    return $(
      "tr",
      { "data-slug": org.slug },
      $("td", {}, $("strong", {}, org.slug), $("div", { class: "muted" }, org.name)),
      $("td", {}, overview.planSettable ? $("div", { class: "row" }, plan, setPlan) : org.plan),
      $("td", {}, org.members),
      $("td", {}, `${org.usage.environments} environments`, $("div", { class: "muted" }, `${org.usage.events30d} events in 30 days`)),
      $("td", {}, state, org.suspendedAt ? $("div", { class: "muted" }, `since ${when(org.suspendedAt)}`) : null, because),
      $(
        "td",
        {},
        org.suspended
          ? action(
              "Lift suspension",
              () => rpc.admin.liftSuspension.mutate({ organizationId: org.id }),
              () => `${org.slug} is no longer suspended.`,
              again,
            )
          : suspendForm(org, again),
      ),
    );
  });
  main.replaceChildren(
    $("h1", {}, "Organizations"),
    form,
    organizations.length === 0
      ? $("p", { class: "muted" }, search ? "No organization matches." : "No organizations yet.")
      : table(["Organization", "Plan", "Members", "Usage", "State", ""], rows),
  );
}

const PLANS = ["free", "team", "enterprise"] as const;

const table = (heads: string[], rows: Node[]) =>
  $("table", {}, $("thead", {}, $("tr", {}, ...heads.map((head) => $("th", { scope: "col" }, head)))), $("tbody", {}, rows));

/**
 * Suspending asks first: a reason (required, up to 500 characters; the organization's members read it
 * in their console) and a confirmation of what stops. The button only opens the form.
 */
function suspendForm(org: Organization, done: () => Promise<void>) {
  const reason = $("textarea", { name: "reason", required: true, maxlength: 500, rows: 2 });
  const confirmed = $("input", { type: "checkbox", name: "confirm", required: true });
  const submit = $("button", { type: "submit", class: "danger" }, `Suspend ${org.slug}`);
  const form = $(
    "form",
    {
      hidden: true,
      onsubmit: async (event) => {
        event.preventDefault();
        submit.disabled = true;
        try {
          await call(() => rpc.admin.suspend.mutate({ organizationId: org.id, reason: reason.value }));
          say(`${org.slug} is suspended.`);
          await done();
        } catch (error) {
          failed(error);
          submit.disabled = false;
        }
      },
    },
    $("label", {}, "Reason (its members will read it)", reason),
    $(
      "label",
      {},
      confirmed,
      ` Suspend ${org.slug}: its engines' events and new work are refused until the suspension is lifted; command claims, reading and exports still work.`,
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
  const { groups } = await call(() => rpc.admin.failures.query());
  main.replaceChildren(
    $("h1", {}, "Failure groups"),
    $(
      "p",
      { class: "muted" },
      `Unexpected failures (500), grouped; kept ${overview.failureRetentionDays} days after their last occurrence.` +
        (overview.failureStore ? "" : " The store is off (SVC_FAILURE_STORE)."),
    ),
    groups.length === 0
      ? $("p", {}, "No failures recorded.")
      : table(
          ["Code", "Route", "Error", "Occurrences", "First seen", "Last seen"],
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
  );
}

async function showLeads() {
  const [{ leads }, { applications }] = await Promise.all([call(() => rpc.admin.leads.query()), call(() => rpc.admin.applications.query())]);
  const contact = (row: { name: string; email: string }) => $("td", {}, $("strong", {}, row.name), $("div", { class: "muted" }, row.email));
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
  const { operators } = await call(() => rpc.admin.operators.query());
  main.replaceChildren(
    $("h1", {}, "Operators"),
    $("p", { class: "muted" }, "Added, reset and removed with the command line: npm run --silent svc -- admin ..."),
    table(
      ["Login", "Added", "Last sign-in"],
      operators.map((operator) => $("tr", {}, $("td", {}, operator.login), $("td", {}, when(operator.createdAt)), $("td", {}, when(operator.lastSignInAt)))),
    ),
  );
}

void fetch("/admin/session").then(async (response) => {
  if (response.status === 401) return showSignIn();
  const body = (await response.json().catch(() => ({}))) as { error?: string; csrfToken?: string; login?: string };
  if (!response.ok) return main.replaceChildren($("p", { class: "danger", role: "alert" }, body.error || "The portal is unavailable."));
  setCsrfToken(body.csrfToken!);
  await start(body.login!).catch(failed);
});
