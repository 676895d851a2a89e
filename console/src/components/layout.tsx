// The frame of every signed-in page: the organization switcher, the sections the person may open
// there (grouped by task), their account and sign-out.
import type { ComponentChildren } from "preact";
import { useContext, useEffect, useState } from "preact/hooks";
import { LIVE_TOPICS, type LiveTopic } from "../../../worker/shared/live";
import type { Permission } from "../../../worker/shared/permissions";
import { LiveHubProvider, type LiveState, useLiveChannel } from "../live";
import { navigate } from "../router";
import { orgView, SessionContext, signOut, type OrgView } from "../session";
import { ActionButton } from "./actions";
import { Link } from "./link";
import { SuspensionBanner } from "./suspension";
import { AnnounceContext } from "../announce";
import { useAssistantOffered } from "../pages/assistant";

/** The task a section serves: the navigation's groups, in the order of their first section below. */
type Group = "Work" | "People" | "Access" | "Organization" | "Installation" | "Help";

export interface Section {
  path: string;
  title: string;
  group: Group;
  /** The permission it needs to be shown (null: any member). */
  permission: Permission | null;
  /** Shown only in the operating organization (SVC_ANALYTICS_OPERATOR_ORG; the session says which). */
  operatingOnly?: true;
}

/** The organization's sections, grouped by task: the navigation and the pages both read this list. */
export const SECTIONS: Section[] = [
  // The organization's home once an engine has reported, and the steps until one has (console/README.md).
  { path: "overview", title: "Overview", group: "Work", permission: "environments.view" },
  { path: "getting-started", title: "Getting started", group: "Work", permission: "environments.view" },
  { path: "environments", title: "Environments", group: "Work", permission: "environments.view" },
  { path: "workloads", title: "Workloads", group: "Work", permission: "workloads.view" },
  { path: "runtimes", title: "Runtimes", group: "Work", permission: "runtimes.manage" },
  // Masking and egress proposals, their pull requests, fork commits waiting for approval.
  { path: "proposals", title: "Proposals", group: "Work", permission: null },
  { path: "members", title: "Members", group: "People", permission: null },
  { path: "sessions", title: "Sessions", group: "People", permission: "sessions.manage" },
  // The model clients the person connected through /mcp: their own, whatever their role.
  { path: "connected-clients", title: "Connected clients", group: "People", permission: null },
  { path: "tokens", title: "Tokens", group: "Access", permission: "tokens.manage" },
  { path: "claims", title: "Repository claims", group: "Access", permission: "tokens.manage" },
  { path: "providers", title: "Model provider keys", group: "Access", permission: "tokens.manage" },
  { path: "settings", title: "Settings", group: "Organization", permission: null },
  { path: "billing", title: "Billing", group: "Organization", permission: "billing.manage" },
  { path: "audit", title: "Audit log", group: "Organization", permission: "audit.read" },
  // Managers export; the deletion on the same page is the owners' (organization.delete).
  { path: "leaving", title: "Leaving", group: "Organization", permission: "data.export" },
  // Installation analytics: the server checks analytics.read in the operating organization itself.
  { path: "analytics", title: "Analytics", group: "Installation", permission: "analytics.read", operatingOnly: true },
  // The website assistant: offered to owners only while it is on (useAssistantOffered).
  { path: "assistant", title: "Assistant", group: "Help", permission: null },
];

/** Why the person may not open `section` in this organization (the page says it once), or null when they may. */
export function sectionRefusal(section: Section, view: OrgView): string | null {
  if (section.operatingOnly && !view.org.operating) {
    return `The installation analytics are read only in the operating organization (SVC_ANALYTICS_OPERATOR_ORG); ${view.org.name} is not it.`;
  }
  if (section.permission && !view.can(section.permission)) {
    return `Your role (${view.org.role}) does not include ${section.permission}, so this section is not shown to you.`;
  }
  return null;
}

/** The sections the person may open here, by group (a group with none is left out). */
function offeredGroups(view: OrgView, assistantOffered: boolean): Array<{ group: Group; sections: Section[] }> {
  const offered = SECTIONS.filter((section) => sectionRefusal(section, view) === null && (section.path !== "assistant" || assistantOffered));
  return [...new Set(offered.map((section) => section.group))].map((group) => ({ group, sections: offered.filter((section) => section.group === group) }));
}

export function Layout({ view, section, children }: { view: OrgView | null; section: string; children: ComponentChildren }) {
  const state = useContext(SessionContext)!;
  const { person, organizations } = state.session;
  const title = SECTIONS.find((entry) => entry.path === section)?.title ?? (section === "account" ? "Your account" : "Console");
  useEffect(() => {
    document.title = view ? `${title} · ${view.org.name}` : title;
  }, [title, view?.org.name]);
  const [announced, setAnnounced] = useState<string | null>(null);
  useEffect(() => setAnnounced(null), [section, view?.org.slug]);
  const assistantOffered = useAssistantOffered(view);
  // The organization's live channel, for the topics this role may read (the server checks them again).
  const topics = view ? (Object.keys(LIVE_TOPICS) as LiveTopic[]).filter((topic) => view.can(LIVE_TOPICS[topic])) : [];
  const live = useLiveChannel(view?.org.id ?? null, topics);
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
              onChange={(event) => {
                const target = organizations.find((org) => org.slug === event.currentTarget.value)!;
                // The same section there when it is offered there, else its environments.
                const same = SECTIONS.find((entry) => entry.path === section);
                navigate(`/o/${encodeURIComponent(target.slug)}/${same && sectionRefusal(same, orgView(target)) === null ? section : "environments"}`);
              }}
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
        {view && <LiveStatus state={live.state} />}
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
        <nav aria-label="Sections" class="sections">
          {offeredGroups(view, assistantOffered).map(({ group, sections }) => (
            <div key={group} class="group" role="group" aria-labelledby={`nav-${group}`}>
              <h2 id={`nav-${group}`}>{group}</h2>
              <ul>
                {sections.map((entry) => (
                  <li key={entry.path}>
                    <Link href={`/o/${encodeURIComponent(view.org.slug)}/${entry.path}`} current={entry.path === section}>
                      {entry.title}
                    </Link>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </nav>
      )}
      <main id="content" tabIndex={-1}>
        {view && <SuspensionBanner orgId={view.org.id} slug={view.org.slug} />}
        {announced && (
          <p role="status" class="ok">
            {announced}
          </p>
        )}
        <AnnounceContext.Provider value={setAnnounced}>
          <LiveHubProvider value={live.hub}>{children}</LiveHubProvider>
        </AnnounceContext.Provider>
      </main>
    </>
  );
}

/** Whether the page follows changes as they happen; when it does not, why, and that a reload still shows the present. */
function LiveStatus({ state }: { state: LiveState }) {
  const text = {
    connecting: "Connecting...",
    live: "Live",
    reconnecting: "Reconnecting...",
    ended: `Live updates stopped${state.kind === "ended" && state.reason ? `: ${state.reason}` : ""}`,
  }[state.kind];
  return (
    <span role="status" class={`live live-${state.kind}`} title="Pages change as engines report, without a reload.">
      {text}
    </span>
  );
}
