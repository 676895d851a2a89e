// Which page an address shows: sign-in, the invitation link, the waiting page, the account, and an
// organization's sections (/o/<slug>/<section>[/<id>]).
import { useEffect, useState } from "preact/hooks";
import { FailureNote } from "./components/feedback";
import { Layout } from "./components/layout";
import { Link } from "./components/link";
import { useLoad } from "./load";
import { PAGES, pageRefusal } from "./pages";
import { AcceptInvitationPage, takePendingInvitation } from "./pages/accept";
import { AccountPage } from "./pages/account";
import { SignInPage } from "./pages/signin";
import { WaitingPage } from "./pages/waiting";
import { describeFailure, rpc, type Failure } from "./rpc";
import { match, navigate, useLocation } from "./router";
import { loadSession, orgView, rememberedOrganization, rememberOrganization, SessionContext, type OrgView, type Session } from "./session";

export function App() {
  const url = useLocation();
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [failure, setFailure] = useState<Failure | null>(null);
  const refresh = () =>
    loadSession().then(
      (loaded) => {
        setFailure(null);
        setSession(loaded);
      },
      (error: unknown) => setFailure(describeFailure(error)),
    );
  useEffect(() => void refresh(), []);

  const path = url.pathname.replace(/\/+$/, "") || "/";
  if (failure)
    return (
      <main class="narrow">
        <h1>The console could not start</h1>
        <FailureNote failure={failure} />
        <button type="button" onClick={() => void refresh()}>
          Try again
        </button>
      </main>
    );
  if (session === undefined) return <PageLoading />;
  if (path === "/invitations/accept") {
    return <AcceptInvitationPage token={url.searchParams.get("token")} session={session} refresh={refresh} />;
  }
  if (session === null) return <SignInPage />;

  const state = { session, refresh };
  return <SessionContext.Provider value={state}>{route(path, session)}</SessionContext.Provider>;
}

function route(path: string, session: Session) {
  // Back from signing in to accept an invitation (a person with no organization yet included).
  const invitation = path === "/" ? takePendingInvitation() : null;
  if (invitation) return <Redirect to={`/invitations/accept?token=${encodeURIComponent(invitation)}`} />;
  if (path === "/account")
    return (
      // The organization last used stays in the frame (its switcher and sections), not lost to "Choose...".
      <Layout view={lastUsed(session)} section="account">
        <AccountPage />
      </Layout>
    );
  if (session.organizations.length === 0)
    return (
      <Layout view={null} section="waiting">
        <WaitingPage />
      </Layout>
    );
  if (path === "/") return <Redirect to={landing(session, "")} />;
  // The billing provider's checkout comes back here (subscriptions.checkout names no organization).
  if (path === "/billing") return <Redirect to={landing(session, "billing") + location.search} />;
  const home = match("/o/:slug", path);
  const homeOrg = home && session.organizations.find((membership) => membership.slug === home.slug);
  if (homeOrg) return <Home orgId={homeOrg.id} path={path} />;
  const params = match("/o/:slug/:section", path) ?? match("/o/:slug/:section/:id", path);
  const org = params && session.organizations.find((membership) => membership.slug === params.slug);
  const declared = params && PAGES.find((page) => page.path === params.section);
  const Page = declared && (params.id ? declared.item : declared.page);
  if (!params || !org || !declared || !Page) {
    return (
      <Layout view={null} section="missing">
        <h1>Nothing here</h1>
        <p>
          This address shows no page of an organization you belong to. <Link href="/">Go to your organization</Link>.
        </p>
      </Layout>
    );
  }
  const view = orgView(org);
  const refusal = pageRefusal(declared, view);
  return (
    <Layout view={view} section={declared.path}>
      <Remember slug={org.slug} />
      {refusal ? <p role="alert">{refusal}</p> : <Page view={view} id={params.id} />}
    </Layout>
  );
}

/** The last organization used, else the first; null for a person in none. */
function lastUsed(session: Session): OrgView | null {
  const remembered = rememberedOrganization();
  const org = session.organizations.find((membership) => membership.slug === remembered) ?? session.organizations[0];
  return org ? orgView(org) : null;
}

/** A section of the last organization used, else the first (where `/` leads). */
function landing(session: Session, section: string): string {
  return `/o/${encodeURIComponent(lastUsed(session)!.org.slug)}/${section}`;
}

/** An organization's home: getting started until an engine has reported, the overview after. */
function Home({ orgId, path }: { orgId: string; path: string }) {
  const started = useLoad(() => rpc.overview.gettingStarted.query({ orgId }), [orgId]);
  // A failure lands on the overview, which shows it (and the role's refusal) in its own words.
  if (started.data === undefined && !started.failure) return <PageLoading />;
  return <Redirect to={`${path}/${started.data && !started.data.steps.reported ? "getting-started" : "overview"}`} />;
}

/** A whole page waiting for what decides which page it is. */
const PageLoading = () => (
  <main class="narrow">
    <p role="status" class="muted">
      Loading...
    </p>
  </main>
);

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

function Remember({ slug }: { slug: string }) {
  useEffect(() => rememberOrganization(slug), [slug]);
  return null;
}
