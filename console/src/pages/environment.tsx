// One environment: its facts, preview addresses, latest teardown, its engine runs and network
// decisions (records.tsx), its workload runs, and the engine work a member may start on it.
import { Activity } from "../components/activity";
import { ActionButton, ActionForm, field } from "../components/actions";
import { dispatchSentence } from "../components/dispatch";
import { Show } from "../components/feedback";
import { Time } from "../components/time";
import { Link } from "../components/link";
import { useLoad } from "../load";
import { rpc, type Outputs } from "../rpc";
import type { OrgView } from "../session";
import { RunsTable } from "./workloads";
import { EngineRuns, NetworkDecisions } from "./records";
import { Status } from "../components/status-badge";

export function EnvironmentPage({ view, id }: { view: OrgView; id?: string }) {
  const { org, can } = view;
  const envId = id ?? "";
  const environment = useLoad(() => rpc.environments.get.query({ orgId: org.id, envId }), [org.id, envId], { topics: ["environments"], envId });
  const live = environment.data && environment.data.state !== "torn_down";
  // A failed environment runs nothing more: what is left is to bring it up again or tear it down.
  const failed = environment.data?.state === "failed";
  return (
    <>
      <p>
        <Link href={`/o/${encodeURIComponent(org.slug)}/environments`}>All environments</Link>
      </p>
      <h1>
        Environment <code>{envId}</code>
      </h1>
      <Show loaded={environment}>
        {(env) => (
          <>
            <dl class="facts">
              <dt>State</dt>
              <dd>
                <Status value={env.state} testId="env-state" />
              </dd>
              <dt>Repository</dt>
              <dd>{env.repository}</dd>
              <dt>Branch</dt>
              <dd>
                {env.branch ?? "none reported"}
                {env.pullRequest ? `, pull request #${env.pullRequest}` : ""}
              </dd>
              <dt>Started</dt>
              <dd>
                <Time at={env.startedAt} none="not reported yet" />
              </dd>
              <dt>Expires</dt>
              <dd>
                <Time at={env.expiresAt} none="no expiry reported" lapsed="expired" />
              </dd>
              <dt>Last heard from</dt>
              <dd>
                <Time at={env.lastHeardAt} />
              </dd>
              <dt>Latest teardown</dt>
              <dd data-testid="teardown">
                {teardownText(env.teardown)}
                {env.teardown && (
                  <>
                    {" "}
                    (requested <Time at={env.teardown.requestedAt} />)
                  </>
                )}
              </dd>
            </dl>
            {failed && (
              <section class="broken" aria-labelledby="failed-heading" data-testid="env-failed">
                <h2 id="failed-heading">This environment failed</h2>
                <p>
                  Its engine reported it failed <Time at={env.lastEventAt} />.
                </p>
                {env.failure?.reason && (
                  <blockquote data-testid="failure-reason">
                    <p>{env.failure.reason}</p>
                  </blockquote>
                )}
                <p>
                  {env.failure?.workflowRunUrl ? (
                    <>
                      More is in the log of <a href={env.failure.workflowRunUrl}>the workflow run that brought it up</a>.
                    </>
                  ) : (
                    <>
                      More is in the log of the workflow run that brought it up, in <code>{env.repository}</code>'s workflow runs on the code host.
                    </>
                  )}{" "}
                  Bring it up again for the same branch, or tear it down.
                </p>
                {can("environments.create") && env.branch !== null && (
                  <ActionButton
                    label="Create it again"
                    kind="primary"
                    run={async () => {
                      const created = await rpc.environments.create.mutate({
                        orgId: org.id,
                        repository: env.repository,
                        branch: env.branch!,
                        ...(env.pullRequest ? { pullRequest: env.pullRequest } : {}),
                      });
                      return `Requested environment ${created.envId}. ${dispatchSentence(created.dispatch)}`;
                    }}
                  />
                )}
              </section>
            )}
            <h2>Preview addresses</h2>
            {env.previewUrls.length ? (
              <ul>
                {env.previewUrls.map((url) => (
                  <li key={url}>
                    <a href={url} rel="noreferrer" target="_blank">
                      {url}
                    </a>
                  </li>
                ))}
              </ul>
            ) : (
              <p class="muted">The engine has reported none yet.</p>
            )}
          </>
        )}
      </Show>
      {live && (can("environments.teardown") || (!failed && (can("agents.run") || can("load.run")))) && (
        <>
          <h2>Act on it</h2>
          <div class="row-actions">
            {can("environments.teardown") && (
              <ActionButton
                label="Tear down"
                kind="danger"
                confirm={`Tear down ${envId}?`}
                run={async () => {
                  const answer = await rpc.environments.teardown.mutate({ orgId: org.id, envId });
                  environment.reload();
                  return `Teardown requested. ${dispatchSentence(answer.dispatch)}`;
                }}
              />
            )}
            {can("load.run") && !failed && (
              <ActionButton
                label="Run load"
                run={async () => `Load run requested. ${dispatchSentence((await rpc.load.run.mutate({ orgId: org.id, envId })).dispatch)}`}
              />
            )}
          </div>
          {can("agents.run") && !failed && (
            <ActionForm
              label="Run agents"
              submit={async (fields) => {
                const names = field(fields, "workflows")
                  ?.split(",")
                  .map((name) => name.trim())
                  .filter(Boolean);
                const answer = await rpc.agents.run.mutate({ orgId: org.id, envId, ...(names?.length ? { workflows: names } : {}) });
                return `Agent run requested. ${dispatchSentence(answer.dispatch)}`;
              }}
            >
              <label>
                Agent workflows (comma-separated; all when empty)
                <input name="workflows" />
              </label>
            </ActionForm>
          )}
        </>
      )}
      <Activity orgId={org.id} envId={envId} />
      <EngineRuns view={view} envId={envId} />
      <NetworkDecisions orgId={org.id} envId={envId} />
      {can("workloads.view") && (
        <>
          <h2>Workload runs here</h2>
          <RunsTable orgId={org.id} envId={envId} canRun={can("workloads.run")} />
        </>
      )}
    </>
  );
}

const teardownText = (teardown: Outputs["environments"]["get"]["teardown"]) =>
  !teardown ? "none" : teardown.confirmed ? "confirmed by the engine" : `requested, waiting for the engine (${teardown.state})`;
