// Getting started: what an organization needs before its first engine reports, as a checklist whose
// steps turn done from the server's rows (overview.gettingStarted), never from a flag kept here. It
// asks again every few seconds until an environment has reported, then hands over to the overview.
import { useEffect, useRef, useState } from "preact/hooks";
import { Show } from "../components/feedback";
import { Link } from "../components/link";
import { Time } from "../components/time";
import { useLoad } from "../load";
import { rpc, type Outputs } from "../rpc";
import type { OrgView } from "../session";

type Started = Outputs["overview"]["gettingStarted"];

/**
 * How often the page asks again while nothing has reported: the App's installation and the first
 * identity exchange are not changes the live channel carries (the first environment is, at once).
 */
const POLL_MS = 4000;

export function GettingStartedPage({ view }: { view: OrgView }) {
  const { org } = view;
  const started = useLoad(() => rpc.overview.gettingStarted.query({ orgId: org.id }), [org.id], { topics: ["environments"] });
  const connected = started.data?.connected ?? null;
  useEffect(() => {
    if (connected || started.failure) return;
    const timer = setInterval(started.reload, POLL_MS);
    return () => clearInterval(timer);
  }, [connected, started.failure, started.reload]);
  return (
    <>
      <h1>Getting started</h1>
      {/* First, where the person looks: not at the end of the checklist, under the workflow file. */}
      {connected && <Connected slug={encodeURIComponent(org.slug)} connected={connected} />}
      <p>
        The engine runs in your own repository's workflows and reports what it does here. Four steps get the first report in; each turns done by itself as it
        happens.
      </p>
      <Show loaded={started}>{(data) => <Steps view={view} data={data} />}</Show>
    </>
  );
}

function Steps({ view, data }: { view: OrgView; data: Started }) {
  const slug = encodeURIComponent(view.org.slug);
  const { steps } = data;
  return (
    <ol class="steps">
      <Step done={steps.installed} title="Install the App on your repositories">
        {data.installations.length === 0 ? (
          <p>The App is not installed on any account of this organization yet.</p>
        ) : (
          <ul>
            {data.installations.map((installation) => (
              <li key={installation.account}>
                <strong>{installation.account}</strong>
                {installation.suspended && <span class="flag danger">suspended</span>}:{" "}
                {installation.repositoryCount === 0
                  ? "all repositories the account grants, none listed yet"
                  : `${installation.repositories.join(", ")}${installation.repositoryCount > installation.repositories.length ? ` and ${installation.repositoryCount - installation.repositories.length} more` : ""}`}
              </li>
            ))}
          </ul>
        )}
        {data.installUrl ? (
          <p>
            <a class="button" href={data.installUrl}>
              {data.installations.length === 0 ? "Install the App" : "Install on more repositories"}
            </a>
          </p>
        ) : (
          <p class="muted">Ask the operator of this service for the App's install link.</p>
        )}
      </Step>
      <Step done={steps.workflowAdded} title={`Add the engine's workflow (.github/workflows/${data.workflowFile})`}>
        {/* Once an engine reported, the file is history: folded, so the page is short. */}
        {data.connected ? (
          <details>
            <summary>The workflow file</summary>
            <Workflow data={data} />
          </details>
        ) : (
          <Workflow data={data} />
        )}
      </Step>
      <Step done={steps.identity} title="Let the workflow exchange its identity">
        <p>
          A workflow trades its identity token for an engine token at <code>{data.controlPlaneUrl}/v1/auth/codehost-oidc</code>. That works for a repository
          this organization has claimed, or one whose owner has the App installed here (its claim is made on the first exchange).
        </p>
        {data.claims && data.claims.length > 0 && (
          <ul>
            {data.claims.map((claim) => (
              <li key={claim.repository}>
                {claim.repository}: {claim.proven ? "claimed" : "claimed, not proven yet"}, last used <Time at={claim.lastUsedAt} />
              </li>
            ))}
          </ul>
        )}
        {view.can("tokens.manage") && (
          <p>
            <Link href={`/o/${slug}/claims`}>Repository claims</Link>
          </p>
        )}
      </Step>
      <Step done={steps.reported} title="Wait for the first event">
        {data.connected ? (
          <p>Heard from {data.connected.envId}: see the top of this page.</p>
        ) : (
          <p role="status">Waiting for the first event... This page checks every few seconds; run the workflow (or open a pull request) to start it.</p>
        )}
      </Step>
    </ol>
  );
}

/**
 * The first engine reported: said at the top of the page, with where to go next, and brought into view
 * when it appears (a person waiting has scrolled to the last step); the focus stays where it was.
 */
function Connected({ slug, connected }: { slug: string; connected: NonNullable<Started["connected"]> }) {
  const shown = useRef<HTMLElement>(null);
  useEffect(() => shown.current?.scrollIntoView({ block: "nearest" }), []);
  return (
    <section class="panel connected" aria-label="Connected" ref={shown}>
      <p role="status" class="ok">
        Connected: <Link href={`/o/${slug}/environments/${encodeURIComponent(connected.envId)}`}>{connected.envId}</Link> ({connected.repository},{" "}
        {connected.state}, last event <Time at={connected.lastEventAt} />
        ).
      </p>
      <p>
        <Link href={`/o/${slug}/overview`}>Go to the overview</Link>
      </p>
    </section>
  );
}

function Step({ done, title, children }: { done: boolean; title: string; children: preact.ComponentChildren }) {
  return (
    <li class={`panel step ${done ? "done" : "todo"}`}>
      <h2>
        {title} <span class={`flag ${done ? "ok" : "muted"}`}>{done ? "Done" : "Not done"}</span>
      </h2>
      {children}
    </li>
  );
}

/** The workflow file, with this control plane's address filled in (the server's text), and a button that copies it. */
function Workflow({ data }: { data: Started }) {
  const text = data.workflowText;
  const [copied, setCopied] = useState<string>("");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied("Copied the workflow to the clipboard.");
    } catch {
      setCopied("The browser did not allow copying; select the text and copy it instead.");
    }
  };
  return (
    <>
      <p>
        It reports to <code>{data.controlPlaneUrl}</code>; the console starts it by name to create environments and run work.
      </p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the file scrolls sideways; focusable, a keyboard scrolls it too */}
      <pre class="file" role="region" tabIndex={0} aria-label={`The workflow file ${data.workflowFile}`}>
        <code>{text}</code>
      </pre>
      <button type="button" class="secondary" onClick={() => void copy()}>
        Copy the workflow
      </button>{" "}
      <span role="status">{copied}</span>
    </>
  );
}
