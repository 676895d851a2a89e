// Environments: newest first with state, expiry and teardown; create one for a branch or pull request.
import { ActionForm, field } from "../components/actions";
import { dispatchSentence } from "../components/dispatch";
import { Empty, Show } from "../components/feedback";
import { Time } from "../components/time";
import { Link } from "../components/link";
import { ShowMore, usePaged } from "../components/paged";
import { rpc, type Outputs } from "../rpc";
import type { OrgView } from "../session";

export function EnvironmentsPage({ view }: { view: OrgView }) {
  const { org, can } = view;
  const environments = usePaged((cursor) => rpc.environments.list.query({ orgId: org.id, cursor }), [org.id], { topics: ["environments"] });
  return (
    <>
      <h1>Environments</h1>
      <Show loaded={environments}>
        {(rows) =>
          rows.length === 0 ? (
            <Empty>
              No environments yet. {can("environments.create") ? "Create one for a branch below" : "Someone with a member role can create one"}; it appears here
              when its engine reports (its first event to POST /v1/events).
            </Empty>
          ) : (
            <EnvironmentTable slug={org.slug} rows={rows} />
          )
        }
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
              <input name="repository" required placeholder="acme/shop" />
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

export const teardownText = (teardown: Outputs["environments"]["get"]["teardown"]) =>
  !teardown ? "none" : teardown.confirmed ? "confirmed by the engine" : `requested, waiting for the engine (${teardown.state})`;

function EnvironmentTable({ slug, rows }: { slug: string; rows: Outputs["environments"]["list"]["items"] }) {
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th>Environment</th>
            <th>State</th>
            <th>Repository</th>
            <th>Branch / PR</th>
            <th>Expires</th>
            <th>Teardown</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((env) => (
            <tr key={env.envId}>
              <td>
                <Link href={`/o/${encodeURIComponent(slug)}/environments/${encodeURIComponent(env.envId)}`}>
                  <code>{env.envId}</code>
                </Link>
              </td>
              <td>{env.state}</td>
              <td>{env.repository}</td>
              <td>
                {env.branch ?? <span class="muted">none</span>}
                {env.pullRequest ? ` (#${env.pullRequest})` : ""}
              </td>
              <td>
                <Time at={env.expiresAt} none="not reported" />
              </td>
              <td>{teardownText(env.teardown)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
