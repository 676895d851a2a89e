// Workloads: definitions with their current version, defining one, managing one (versions,
// explorations, promotion, archive: workload-lifecycle.tsx), starting a run on an environment, and the
// runs with their lease, deadline and abandon reason (paged), cancelled or retried.
import { useState } from "preact/hooks";
import { ActionForm, field } from "../components/actions";
import { dispatchSentence } from "../components/dispatch";
import { Empty, FailureNote, Show } from "../components/feedback";
import { Table } from "../components/table";
import { Time } from "../components/time";
import { useLoad } from "../load";
import { rpc, type Outputs } from "../rpc";
import { ShowMore, usePaged } from "../components/paged";
import type { OrgView } from "../session";
import { RunActions, WorkloadDetail } from "./workload-lifecycle";
import { Status } from "../components/status-badge";
import { jsonObject } from "../components/field-error";

const PAGE = 25;

export function WorkloadsPage({ view }: { view: OrgView }) {
  const { org, can } = view;
  const [archived, setArchived] = useState(false);
  const definitions = useLoad(() => rpc.workloads.list.query({ orgId: org.id, includeArchived: archived }), [org.id, archived], { topics: ["workloads"] });
  const [runsRound, setRunsRound] = useState(0);
  const [managing, setManaging] = useState<string | null>(null);
  return (
    <>
      <h1>Workloads</h1>
      <Show loaded={definitions}>
        {(rows) => (
          <Table
            rows={rows}
            rowKey={(workload) => workload.id}
            rowProps={() => ({ "data-testid": "workload" })}
            empty={<>No workloads defined yet. {can("workloads.edit") ? "Define one below with its compiled form." : "A member can define one."}</>}
            columns={[
              {
                header: "Workload",
                cell: (workload) => (
                  <>
                    {workload.name}
                    {workload.archivedAt && <span class="muted"> (archived)</span>}
                  </>
                ),
              },
              { header: "Current version", props: () => ({ "data-testid": "current-version" }), cell: (workload) => <>v{workload.currentVersion.number}</> },
              { header: "Explorations", cell: (workload) => workload.explorations || <span class="muted">none</span> },
              { header: "Defined", cell: (workload) => <Time at={workload.createdAt} /> },
              {
                header: null,
                cell: (workload) => (
                  <button type="button" class="secondary" onClick={() => setManaging(managing === workload.id ? null : workload.id)}>
                    {managing === workload.id ? "Close" : `Manage ${workload.name}`}
                  </button>
                ),
              },
            ]}
          />
        )}
      </Show>
      <label class="check">
        <input type="checkbox" checked={archived} onChange={(event) => setArchived(event.currentTarget.checked)} /> Show archived workloads
      </label>
      {managing && (
        <WorkloadDetail
          key={managing}
          view={view}
          workloadId={managing}
          onChanged={() => {
            definitions.reload();
            setRunsRound((round) => round + 1);
          }}
        />
      )}
      <h2>Runs</h2>
      <RunsTable key={runsRound} orgId={org.id} canRun={can("workloads.run")} />
      {/* What creates comes after the list it adds to, on every page. */}
      {can("workloads.run") && definitions.data?.length ? (
        <StartRun view={view} definitions={definitions.data} onStarted={() => setRunsRound((round) => round + 1)} />
      ) : null}
      {can("workloads.edit") && (
        <>
          <h2>Define a workload</h2>
          <ActionForm
            label="Define workload"
            submit={async (fields) => {
              const compiled = jsonObject("compiled", field(fields, "compiled") ?? "", "The compiled form");
              await rpc.workloads.define.mutate({ orgId: org.id, name: field(fields, "name") ?? "", compiled });
              definitions.reload();
              return `Defined ${field(fields, "name")} (version 1).`;
            }}
          >
            <label>
              Name
              <input name="name" required />
            </label>
            <label>
              Compiled form (JSON, as the engine runs it)
              <textarea name="compiled" rows={4} cols={40} required defaultValue={'{"steps":["load"]}'} />
            </label>
          </ActionForm>
        </>
      )}
    </>
  );
}

function StartRun({ view, definitions, onStarted }: { view: OrgView; definitions: Outputs["workloads"]["list"]; onStarted: () => void }) {
  const { org } = view;
  // The most recently active environments (a page of the largest size): the ones a run is likely for.
  const environments = useLoad(() => rpc.environments.list.query({ orgId: org.id, limit: 200 }), [org.id]);
  const workable = environments.data?.items.filter((env) => env.state !== "torn_down" && env.branch !== null) ?? [];
  return (
    <>
      <h2>Start a run</h2>
      {environments.failure && <FailureNote failure={environments.failure} />}
      {environments.data && workable.length === 0 ? (
        <Empty>No environment can take a run: a run needs a live environment whose engine reported its branch.</Empty>
      ) : (
        <ActionForm
          label="Start run"
          submit={async (fields) => {
            const workflow = field(fields, "workflow");
            const started = await rpc.workloads.start.mutate({
              orgId: org.id,
              envId: field(fields, "envId") ?? "",
              versionId: field(fields, "versionId") ?? "",
              ...(workflow ? { workflow } : {}),
            });
            onStarted();
            return `Run of ${started.workload} v${started.version} recorded on ${started.envId}; an engine claims it. ${dispatchSentence(started.dispatch)}`;
          }}
        >
          <label>
            Workload
            <select name="versionId" required>
              {definitions
                .filter((workload) => !workload.archivedAt)
                .map((workload) => (
                  <option key={workload.id} value={workload.currentVersion.id}>
                    {workload.name} v{workload.currentVersion.number}
                  </option>
                ))}
            </select>
          </label>
          <label>
            Environment
            <select name="envId" required>
              {workable.map((env) => (
                <option key={env.envId} value={env.envId}>
                  {env.envId} ({env.state})
                </option>
              ))}
            </select>
          </label>
          <label>
            Workflow file (optional)
            <input name="workflow" placeholder="control-plane.yml" />
          </label>
        </ActionForm>
      )}
    </>
  );
}

/** Runs, newest first, a page at a time; "Show more" continues after the last one shown. */
export function RunsTable({ orgId, envId, canRun = false }: { orgId: string; envId?: string; canRun?: boolean }) {
  const paged = usePaged((cursor) => rpc.workloads.runs.query({ orgId, limit: PAGE, cursor, ...(envId ? { envId } : {}) }), [orgId, envId], {
    topics: ["workloads"],
    ...(envId ? { envId } : {}),
  });
  const { data: runs = null, failure } = paged;
  return (
    <>
      {failure && <FailureNote failure={failure} />}
      {runs === null ? (
        !failure && (
          <p role="status" class="muted">
            Loading...
          </p>
        )
      ) : (
        <Table
          rows={runs}
          rowKey={(run) => run.id}
          empty={
            <>
              No workload runs {envId ? "on this environment" : ""} yet. Start one{" "}
              {envId ? "from Workloads" : "with Start a run below, once a workload is defined"}; an engine in the environment claims it through POST
              /v1/workloads/claim.
            </>
          }
          columns={[
            {
              header: "Workload",
              cell: (run) => (
                <>
                  {run.workload} v{run.version}
                </>
              ),
            },
            !envId && { header: "Environment", cell: (run) => <code>{run.envId}</code> },
            {
              header: "State",
              props: () => ({ "data-testid": "run-state" }),
              cell: (run) => (
                <>
                  <Status value={run.state} />
                  {run.abandonReason && <span class="warn"> ({run.abandonReason})</span>}
                </>
              ),
            },
            { header: "Requested", cell: (run) => <Time at={run.requestedAt} /> },
            {
              header: "Lease",
              cell: (run) =>
                run.lease.held ? (
                  <>
                    held, the lease ends <Time at={run.lease.expiresAt} />
                  </>
                ) : (
                  <span class="muted">not held</span>
                ),
            },
            { header: "Deadline", cell: (run) => <Time at={run.deadline} /> },
            { header: "Claims", cell: (run) => run.claims },
            { header: "Ended", cell: (run) => (run.endedAt ? <Time at={run.endedAt} /> : <span class="muted">running or waiting</span>) },
            canRun && { header: null, cell: (run) => <RunActions orgId={orgId} run={run} onChanged={paged.reload} /> },
          ]}
        />
      )}
      <ShowMore paged={paged} />
    </>
  );
}
