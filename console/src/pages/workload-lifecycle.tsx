// The workload lifecycle on the Workloads page: one workload's versions (current, exploratory,
// promoted), adding a version or an exploration, promoting one, archiving; and a run's cancel and retry.
import { ActionButton, ActionForm } from "../components/actions";
import { dispatchSentence } from "../components/dispatch";
import { Show } from "../components/feedback";
import { Table } from "../components/table";
import { Time } from "../components/time";
import { useLoad } from "../load";
import { rpc } from "../rpc";
import type { OrgView } from "../session";
import { jsonObject } from "../components/field-error";

export function WorkloadDetail({ view, workloadId, onChanged }: { view: OrgView; workloadId: string; onChanged: () => void }) {
  const { org, can } = view;
  const workload = useLoad(() => rpc.workloads.get.query({ orgId: org.id, workloadId }), [org.id, workloadId], { topics: ["workloads"] });
  const changed = () => {
    workload.reload();
    onChanged();
  };
  return (
    <section class="panel" aria-label="Workload">
      <Show loaded={workload}>
        {(w) => (
          <>
            <h2>
              Workload {w.name}
              {w.archivedAt && (
                <span class="muted">
                  {" "}
                  (archived <Time at={w.archivedAt} />)
                </span>
              )}
            </h2>
            <Table
              rows={w.versions}
              rowKey={(v) => v.id}
              rowProps={() => ({ "data-testid": "workload-version" })}
              columns={[
                { header: "Version", cell: (v) => <>v{v.number}</> },
                {
                  header: "Kind",
                  props: () => ({ "data-testid": "version-kind" }),
                  cell: (v) => (
                    <>
                      {v.current ? "current" : v.exploratory ? "exploration" : "earlier"}
                      {v.promotedAt && (
                        <span class="muted">
                          {" "}
                          (promoted <Time at={v.promotedAt} />)
                        </span>
                      )}
                    </>
                  ),
                },
                { header: "Added", cell: (v) => <Time at={v.createdAt} /> },
                {
                  header: null,
                  cell: (v) =>
                    can("workloads.edit") &&
                    !w.archivedAt &&
                    v.exploratory &&
                    !v.current && (
                      <ActionButton
                        label={`Promote v${v.number}`}
                        run={async () => {
                          await rpc.workloads.promote.mutate({ orgId: org.id, versionId: v.id });
                          changed();
                          return `Version ${v.number} is now current.`;
                        }}
                      />
                    ),
                },
              ]}
            />
            {can("workloads.edit") && !w.archivedAt && (
              <>
                <ActionForm
                  label="Add version"
                  submit={async (fields) => {
                    const compiled = jsonObject("compiled", String(fields.get("compiled") ?? ""), "The compiled form");
                    const exploratory = fields.get("exploratory") === "on";
                    const added = await rpc.workloads.addVersion.mutate({
                      orgId: org.id,
                      workloadId,
                      compiled: compiled as Record<string, unknown>,
                      exploratory,
                    });
                    changed();
                    return exploratory ? `Added exploration v${added.number}; promote it to make it current.` : `Added v${added.number}; it is now current.`;
                  }}
                >
                  <label>
                    Compiled form (JSON)
                    <textarea name="compiled" rows={3} cols={40} required defaultValue={JSON.stringify(w.versions[0]?.compiled ?? {})} />
                  </label>
                  <label class="check">
                    <input type="checkbox" name="exploratory" /> Exploration (stays aside until promoted)
                  </label>
                </ActionForm>
                <ActionButton
                  label="Archive workload"
                  kind="danger"
                  confirm={`Archive ${w.name}? It starts no new runs; its versions and runs stay readable.`}
                  run={async () => {
                    await rpc.workloads.archive.mutate({ orgId: org.id, workloadId });
                    changed();
                    return `${w.name} is archived.`;
                  }}
                />
              </>
            )}
          </>
        )}
      </Show>
    </section>
  );
}

/** Cancel (a waiting or held run) and retry (an ended one), for a person with workloads.run. */
export function RunActions({ orgId, run, onChanged }: { orgId: string; run: { id: string; state: string }; onChanged: () => void }) {
  if (run.state === "requested" || run.state === "accepted") {
    return (
      <ActionButton
        label="Cancel run"
        run={async () => {
          const answer = await rpc.workloads.cancelRun.mutate({ orgId, runId: run.id });
          onChanged();
          return answer.state === "cancelled" ? "Cancelled." : "Cancel command queued for the engine holding the run.";
        }}
      />
    );
  }
  return (
    <ActionButton
      label="Retry run"
      run={async () => {
        const answer = await rpc.workloads.retryRun.mutate({ orgId, runId: run.id });
        onChanged();
        return `Retried as a new run. ${dispatchSentence(answer.dispatch)}`;
      }}
    />
  );
}
