// The frame of every signed-in page: the organization switcher, the sections the person's role may
// see, their account and sign-out.
import type { ComponentChildren } from "preact";
import { useContext, useEffect, useState } from "preact/hooks";
import type { Permission } from "../../../worker/shared/permissions";
import { navigate } from "../router";
import { SessionContext, signOut, type OrgView } from "../session";
import { ActionButton } from "./actions";
import { Link } from "./link";
import { AnnounceContext } from "../announce";

/** The organization's sections, and the permission each needs to be shown (null: any member). */
export const SECTIONS: Array<{ path: string; title: string; permission: Permission | null }> = [
  { path: "overview", title: "Overview", permission: "environments.view" },
  { path: "getting-started", title: "Getting started", permission: "environments.view" },
  { path: "environments", title: "Environments", permission: "environments.view" },
  { path: "workloads", title: "Workloads", permission: "workloads.view" },
  { path: "members", title: "Members", permission: null },
  { path: "tokens", title: "Tokens", permission: "tokens.manage" },
  { path: "claims", title: "Repository claims", permission: "tokens.manage" },
  // Masking and egress proposals, their pull requests, fork commits waiting for approval.
  { path: "proposals", title: "Proposals", permission: null },
  { path: "sessions", title: "Sessions", permission: "sessions.manage" },
  { path: "audit", title: "Audit log", permission: "audit.read" },
  { path: "settings", title: "Settings", permission: null },
  { path: "providers", title: "Model provider keys", permission: "tokens.manage" },
  { path: "billing", title: "Billing", permission: "billing.manage" },
  // Managers export; the deletion on the same page is the owners' (organization.delete).
  { path: "leaving", title: "Leaving", permission: "data.export" },
  { path: "runtimes", title: "Runtimes", permission: "runtimes.manage" },
  // The model clients the person connected through /mcp: their own, whatever their role.
  { path: "connected-clients", title: "Connected clients", permission: null },
  // Installation analytics: the server also requires the operating organization (SVC_ANALYTICS_OPERATOR_ORG).
  { path: "analytics", title: "Analytics", permission: "analytics.read" },
];

export function Layout({ view, section, children }: { view: OrgView | null; section: string; children: ComponentChildren }) {
  const state = useContext(SessionContext)!;
  const { person, organizations } = state.session;
  const title = SECTIONS.find((entry) => entry.path === section)?.title ?? (section === "account" ? "Your account" : "Console");
  useEffect(() => {
    document.title = view ? `${title} · ${view.org.name}` : title;
  }, [title, view?.org.name]);
  const [announced, setAnnounced] = useState<string | null>(null);
  useEffect(() => setAnnounced(null), [section, view?.org.slug]);
  return (
    <>
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header class="top">
        <Link href="/">Console</Link>
        {organizations.length > 0 && (
          <label class="switcher">
            Organization
            <select
              value={view?.org.slug ?? ""}
              onChange={(event) =>
                navigate(`/o/${encodeURIComponent(event.currentTarget.value)}/${SECTIONS.some((entry) => entry.path === section) ? section : "environments"}`)
              }
            >
              {!view && <option value="">Choose...</option>}
              {organizations.map((org) => (
                <option key={org.id} value={org.slug}>
                  {org.name} ({org.role})
                </option>
              ))}
            </select>
          </label>
        )}
        <span class="who">
          <Link href="/account" current={section === "account"}>
            {person.login ?? person.email ?? "Account"}
          </Link>{" "}
          <ActionButton
            label="Sign out"
            run={async () => {
              await signOut();
              await state.refresh();
              navigate("/");
              return "Signed out.";
            }}
          />
        </span>
      </header>
      {view && (
        <nav aria-label="Sections">
          {SECTIONS.filter((entry) => entry.permission === null || view.can(entry.permission)).map((entry) => (
            <Link key={entry.path} href={`/o/${encodeURIComponent(view.org.slug)}/${entry.path}`} current={entry.path === section}>
              {entry.title}
            </Link>
          ))}
        </nav>
      )}
      <main id="content" tabIndex={-1}>
        {announced && (
          <p role="status" class="ok">
            {announced}
          </p>
        )}
        <AnnounceContext.Provider value={setAnnounced}>{children}</AnnounceContext.Provider>
      </main>
    </>
  );
}
