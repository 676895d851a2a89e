// The organization's pages, declared once: their address, title, place in the navigation and the
// permission they need. The router (app.tsx) and the navigation (components/layout.tsx) both read
// this list; nothing else names a page.
import type { JSX } from "preact";
import type { Permission } from "../../worker/shared/permissions";
import { AnalyticsPage } from "./pages/analytics";
import { AssistantPage } from "./pages/assistant";
import { AuditPage } from "./pages/audit";
import { ChecksPage } from "./pages/checks";
import { BillingPage } from "./pages/billing";
import { ClaimsPage } from "./pages/claims";
import { ConnectedClientsPage } from "./pages/connected-clients";
import { EnvironmentPage } from "./pages/environment";
import { EnvironmentsPage } from "./pages/environments";
import { GettingStartedPage } from "./pages/getting-started";
import { LeavingPage } from "./pages/leaving";
import { MembersPage } from "./pages/members";
import { OrgSessionsPage } from "./pages/org-sessions";
import { OverviewPage } from "./pages/overview";
import { ProposalsPage } from "./pages/proposals";
import { ProvidersPage } from "./pages/providers";
import { RuntimesPage } from "./pages/runtimes";
import { SettingsPage } from "./pages/settings";
import { TokensPage } from "./pages/tokens";
import { WorkloadsPage } from "./pages/workloads";
import type { OrgView } from "./session";

type PageComponent = (props: { view: OrgView; id?: string }) => JSX.Element;

export interface PageDeclaration {
  /** `/o/<slug>/<path>`. */
  path: string;
  title: string;
  /** "main": an entry of the sidebar; "settings": under its one Settings entry, in the Settings sub-navigation. */
  group: "main" | "settings";
  /** The permission it needs to be shown (null: any member). */
  permission: Permission | null;
  /** Shown only in the operating organization (SVC_ANALYTICS_OPERATOR_ORG; the session says which). */
  operatingOnly?: true;
  /** Offered only while the server says it is on (the assistant: assistantOffered). */
  offeredWhenOn?: true;
  page: PageComponent;
  /** The page of one item, `/o/<slug>/<path>/<id>`. */
  item?: PageComponent;
}

export const PAGES: readonly PageDeclaration[] = [
  // The organization's home once an engine has reported, and the steps until one has (console/README.md).
  { path: "overview", title: "Overview", group: "main", permission: "environments.view", page: OverviewPage },
  { path: "getting-started", title: "Getting started", group: "main", permission: "environments.view", page: GettingStartedPage },
  { path: "environments", title: "Environments", group: "main", permission: "environments.view", page: EnvironmentsPage, item: EnvironmentPage },
  { path: "checks", title: "Checks", group: "main", permission: "environments.view", page: ChecksPage },
  { path: "workloads", title: "Workloads", group: "main", permission: "workloads.view", page: WorkloadsPage },
  { path: "runtimes", title: "Runtimes", group: "main", permission: "runtimes.manage", page: RuntimesPage },
  // Masking and egress proposals, their pull requests, fork commits waiting for approval.
  { path: "proposals", title: "Proposals", group: "main", permission: null, page: ProposalsPage },
  // Installation analytics: the server checks analytics.read in the operating organization itself.
  { path: "analytics", title: "Analytics", group: "main", permission: "analytics.read", operatingOnly: true, page: AnalyticsPage },
  // The website assistant: offered to owners only while it is on.
  { path: "assistant", title: "Assistant", group: "main", permission: null, offeredWhenOn: true, page: AssistantPage },
  // The organization's name: the first page under Settings, which every member may open.
  { path: "settings", title: "General", group: "settings", permission: null, page: SettingsPage },
  { path: "members", title: "Members", group: "settings", permission: null, page: MembersPage },
  { path: "sessions", title: "Sessions", group: "settings", permission: "sessions.manage", page: OrgSessionsPage },
  // The model clients the person connected through /mcp: their own, whatever their role.
  { path: "connected-clients", title: "Connected clients", group: "settings", permission: null, page: ConnectedClientsPage },
  { path: "tokens", title: "Tokens", group: "settings", permission: "tokens.manage", page: TokensPage },
  { path: "claims", title: "Repository claims", group: "settings", permission: "tokens.manage", page: ClaimsPage },
  { path: "providers", title: "Model provider keys", group: "settings", permission: "tokens.manage", page: ProvidersPage },
  { path: "billing", title: "Billing", group: "settings", permission: "billing.manage", page: BillingPage },
  { path: "audit", title: "Audit log", group: "settings", permission: "audit.read", page: AuditPage },
  // Managers export; the deletion on the same page is the owners' (organization.delete).
  { path: "leaving", title: "Leaving", group: "settings", permission: "data.export", page: LeavingPage },
];

/** The sidebar's Settings entry leads to the first page of the group (General: any member may open it). */
export const SETTINGS_HOME = PAGES.find((declared) => declared.group === "settings")!;

/** Why the person may not open `declared` in this organization (the page says it once), or null when they may. */
export function pageRefusal(declared: PageDeclaration, view: OrgView): string | null {
  if (declared.operatingOnly && !view.org.operating) {
    return `The installation analytics are read only in the operating organization (SVC_ANALYTICS_OPERATOR_ORG); ${view.org.name} is not it.`;
  }
  if (declared.permission && !view.can(declared.permission)) {
    return `Your role (${view.org.role}) does not include ${declared.permission}, so this section is not shown to you.`;
  }
  return null;
}

/** The pages of `group` the person may open here. */
export const offeredPages = (view: OrgView, group: PageDeclaration["group"], assistantOn: boolean): PageDeclaration[] =>
  PAGES.filter((declared) => declared.group === group && pageRefusal(declared, view) === null && (!declared.offeredWhenOn || assistantOn));
