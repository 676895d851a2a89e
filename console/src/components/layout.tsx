// The frame of every signed-in page: one sidebar, a menu on a phone (the organization switcher on top, then the pages
// the person may open there, the administrative ones under one Settings entry with a sub-navigation
// of its own), their account and sign-out, and whether the page is live.
import type { ComponentChildren } from "preact";
import { useContext, useEffect, useState } from "preact/hooks";
import { LIVE_TOPICS, type LiveTopic } from "../../../worker/shared/live";
import { LiveHubProvider, type LiveState, useLiveChannel } from "../live";
import { navigate } from "../router";
import { orgView, SessionContext, signOut, type OrgView } from "../session";
import { ActionButton } from "./actions";
import { Link } from "./link";
import { SuspensionBanner } from "./suspension";
import { AnnounceContext } from "../announce";
import { assistantOffered } from "../pages/assistant";
import { offeredPages, PAGES, type PageDeclaration, pageRefusal, SETTINGS_HOME } from "../pages";

export function Layout({ view, section, children }: { view: OrgView | null; section: string; children: ComponentChildren }) {
  const state = useContext(SessionContext)!;
  const { person, organizations } = state.session;
  const current = PAGES.find((declared) => declared.path === section);
  const title = current?.title ?? (section === "account" ? "Your account" : "Console");
  useEffect(() => {
    document.title = view ? `${title} · ${view.org.name}` : title;
  }, [title, view?.org.name]);
  const [announced, setAnnounced] = useState<string | null>(null);
  // On a phone the sidebar is a menu behind a button, closed again once a page is chosen.
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => {
    setAnnounced(null);
    setMenuOpen(false);
  }, [section, view?.org.slug]);
  const assistantOn = assistantOffered(view, state.session);
  // The organization's live channel, for the topics this role may read (the server checks them again).
  const topics = view ? (Object.keys(LIVE_TOPICS) as LiveTopic[]).filter((topic) => view.can(LIVE_TOPICS[topic])) : [];
  const live = useLiveChannel(view?.org.id ?? null, topics);
  const href = (path: string) => `/o/${encodeURIComponent(view!.org.slug)}/${path}`;
  return (
    <div class="frame">
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header class="top">
        <Link href="/">Console</Link>
        <button type="button" class="secondary menu-toggle" aria-expanded={menuOpen} aria-controls="sidebar" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
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
      {/* A link chosen in the menu closes it, the same page's included. */}
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: a link followed from the keyboard fires click too; the aside itself takes no action. */}
      <aside
        class={menuOpen ? "sidebar open" : "sidebar"}
        id="sidebar"
        onClick={(event) => {
          if ((event.target as Element).closest("a")) setMenuOpen(false);
        }}
      >
        {organizations.length > 0 && (
          <label class="switcher">
            Organization
            <select
              value={view?.org.slug ?? ""}
              onChange={(event) => {
                const target = organizations.find((org) => org.slug === event.currentTarget.value)!;
                // The same page there when it is offered there, else its environments.
                navigate(`/o/${encodeURIComponent(target.slug)}/${current && pageRefusal(current, orgView(target)) === null ? section : "environments"}`);
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
        {view && (
          <nav aria-label="Sections" class="sections">
            <ul>
              <PageLinks pages={offeredPages(view, "main", assistantOn)} href={href} section={section} />
              <li>
                <Link href={href(SETTINGS_HOME.path)} current={current?.group === "settings" ? "within" : false}>
                  Settings
                </Link>
              </li>
            </ul>
          </nav>
        )}
      </aside>
      <main id="content" tabIndex={-1}>
        {view && <SuspensionBanner orgId={view.org.id} slug={view.org.slug} />}
        {view && current?.group === "settings" && (
          <nav aria-label="Settings" class="subnav">
            <ul>
              <PageLinks pages={offeredPages(view, "settings", assistantOn)} href={href} section={section} />
            </ul>
          </nav>
        )}
        {announced && (
          <p role="status" class="ok">
            {announced}
          </p>
        )}
        <AnnounceContext.Provider value={setAnnounced}>
          <LiveHubProvider value={live.hub}>{children}</LiveHubProvider>
        </AnnounceContext.Provider>
      </main>
    </div>
  );
}

/** A navigation's links to `pages`, the shown one marked current. */
function PageLinks({ pages, href, section }: { pages: PageDeclaration[]; href: (path: string) => string; section: string }) {
  return (
    <>
      {pages.map((declared) => (
        <li key={declared.path}>
          <Link href={href(declared.path)} current={declared.path === section}>
            {declared.title}
          </Link>
        </li>
      ))}
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
