// Environments: newest first with state (a teardown under way beside it) and expiry; create one for a branch or pull request.
import type { ComponentChildren } from "preact";
import { ActionForm, field } from "../components/actions";
import { dispatchSentence } from "../components/dispatch";
import { Show } from "../components/feedback";
import { Time } from "../components/time";
import { Link } from "../components/link";
import { ShowMore, usePaged } from "../components/paged";
import { Table } from "../components/table";
import { rpc, type Outputs } from "../rpc";
import type { OrgView } from "../session";
import { Status } from "../components/status-badge";
import { statusOf } from "../components/status";
import { useEffect, useState } from "preact/hooks";
import { ENVIRONMENT_STATES, type EnvironmentState } from "../../../worker/shared/enums";

export function EnvironmentsPage({ view }: { view: OrgView }) {
  const { org, can } = view;
  const [state, setState] = useState<EnvironmentState | "">("");
  const [typed, setTyped] = useState("");
  // What is typed narrows the list once typing pauses, not on every key.
  const [search, setSearch] = useState("");
  useEffect(() => {
    const timer = setTimeout(() => setSearch(typed.trim()), 300);
    return () => clearTimeout(timer);
  }, [typed]);
  const narrowed = state !== "" || search !== "";
  const environments = usePaged(
    (cursor) => rpc.environments.list.query({ orgId: org.id, cursor, ...(state ? { state } : {}), ...(search ? { search } : {}) }),
    [org.id, state, search],
    { topics: ["environments"] },
  );
  return (
    <>
      <h1>Environments</h1>
      <search class="fields narrow" aria-label="Narrow the environments">
        <label>
          State
          <select value={state} onChange={(event) => setState(event.currentTarget.value as EnvironmentState | "")}>
            <option value="">Any</option>
            {ENVIRONMENT_STATES.map((value) => (
              <option key={value} value={value}>
                {statusOf(value).label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Find
          <input type="search" placeholder="an environment, repository or branch" value={typed} onInput={(event) => setTyped(event.currentTarget.value)} />
        </label>
      </search>
      <Show loaded={environments}>
        {(rows) => (
          <EnvironmentTable
            slug={org.slug}
            rows={rows}
            empty={
              narrowed ? (
                "No environment matches; choose Any state or clear what you typed to see them all."
              ) : (
                <>
                  No environments yet. {can("environments.create") ? "Create one for a branch below" : "Someone with a member role can create one"}; it appears
                  here when its engine reports (its first event to POST /v1/events).
                </>
              )
            }
          />
        )}
      </Show>
      <ShowMore paged={environments} />
      {can("environments.create") && (
        <>
          <h2>Create an environment</h2>
          <p class="muted">Starts the engine's workflow in your repository for the branch; the environment appears once the engine reports.</p>
          <ActionForm
            label="Create environment"
            submit={async (fields) => {
              const pullRequest = field(fields, "pullRequest");
              const workflow = field(fields, "workflow");
              const created = await rpc.environments.create.mutate({
                orgId: org.id,
                repository: field(fields, "repository") ?? "",
                branch: field(fields, "branch") ?? "",
                ...(pullRequest ? { pullRequest: Number(pullRequest) } : {}),
                ...(workflow ? { workflow } : {}),
              });
              environments.reload();
              return `Requested environment ${created.envId}. ${dispatchSentence(created.dispatch)}`;
            }}
          >
            <label>
              Repository (owner/name)
              <input
                name="repository"
                required
                placeholder="acme/shop"
                pattern="[A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-]+"
                title="owner/name, as the code host writes it"
              />
            </label>
            <label>
              Branch
              <input name="branch" required placeholder="main" />
            </label>
            <label>
              Pull request (optional)
              <input name="pullRequest" type="number" min="1" inputMode="numeric" />
            </label>
            <label>
              Workflow file (optional)
              <input name="workflow" placeholder="control-plane.yml" />
            </label>
          </ActionForm>
        </>
      )}
    </>
  );
}

function EnvironmentTable({ slug, rows, empty }: { slug: string; rows: Outputs["environments"]["list"]["items"]; empty: ComponentChildren }) {
  return (
    <Table
      rows={rows}
      rowKey={(env) => env.envId}
      empty={empty}
      columns={[
        {
          header: "Environment",
          cell: (env) => (
            <Link href={`/o/${encodeURIComponent(slug)}/environments/${encodeURIComponent(env.envId)}`}>
              <code>{env.envId}</code>
            </Link>
          ),
        },
        {
          header: "State",
          // A teardown under way is said beside the state, not in a column of "none" on every other row.
          cell: (env) => (
            <>
              <Status value={env.state} />
              {env.teardown && !env.teardown.confirmed && <span class="muted"> (teardown requested)</span>}
            </>
          ),
        },
        { header: "Repository", cell: (env) => env.repository },
        {
          header: "Branch / PR",
          cell: (env) => (
            <>
              {env.branch ?? <span class="muted">none</span>}
              {env.pullRequest ? ` (#${env.pullRequest})` : ""}
            </>
          ),
        },
        { header: "Expires", cell: (env) => <Time at={env.expiresAt} none="not reported" lapsed="expired" /> },
      ]}
    />
  );
}
