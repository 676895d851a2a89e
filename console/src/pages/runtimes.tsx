// Runtimes (runtimes.manage): the runtimes an organization's engines run on: register one by the name
// its engines report, label it, take labels off, remove it (runs that named it keep the name).
import { useState } from "preact/hooks";
import { ActionButton, ActionForm, field } from "../components/actions";
import { OutcomeNote, Show } from "../components/feedback";
import { Table } from "../components/table";
import { Time } from "../components/time";
import { useAction, useLoad } from "../load";
import { rpc } from "../rpc";
import type { OrgView } from "../session";

export function RuntimesPage({ view }: { view: OrgView }) {
  const { org } = view;
  const [removed, setRemoved] = useState(false);
  const runtimes = useLoad(() => rpc.runtimes.list.query({ orgId: org.id, includeRemoved: removed }), [org.id, removed]);
  return (
    <>
      <h1>Runtimes</h1>
      <p class="muted">
        An engine names its runtime in its events (the <code>runtime</code> field of a run or network decision); a registered runtime shows when an engine last
        reported from it.
      </p>
      <label class="check">
        <input type="checkbox" checked={removed} onChange={(event) => setRemoved(event.currentTarget.checked)} /> Show removed runtimes
      </label>
      <Show loaded={runtimes}>
        {(rows) => (
          <Table
            rows={rows}
            rowKey={(runtime) => runtime.id}
            rowProps={() => ({ "data-testid": "runtime" })}
            empty="No runtimes registered. Register one below by the name its engines report."
            columns={[
              {
                header: "Name",
                cell: (runtime) => (
                  <>
                    {runtime.name}
                    {runtime.removedAt && (
                      <span class="muted">
                        {" "}
                        (removed <Time at={runtime.removedAt} />)
                      </span>
                    )}
                  </>
                ),
              },
              {
                header: "Labels",
                props: () => ({ "data-testid": "runtime-labels" }),
                cell: (runtime) =>
                  runtime.labels.length === 0 ? (
                    <span class="muted">none</span>
                  ) : (
                    runtime.labels.map((label) => (
                      <LabelChip
                        key={label}
                        label={label}
                        remove={
                          runtime.removedAt
                            ? null
                            : async () => {
                                await rpc.runtimes.untag.mutate({ orgId: org.id, runtimeId: runtime.id, label });
                                runtimes.reload();
                                return `Took ${label} off.`;
                              }
                        }
                      />
                    ))
                  ),
              },
              { header: "Last seen", props: () => ({ "data-testid": "runtime-seen" }), cell: (runtime) => <Time at={runtime.lastSeenAt} /> },
              { header: "Runs", cell: (runtime) => runtime.runs },
              { header: "Registered", cell: (runtime) => <Time at={runtime.createdAt} /> },
              {
                header: null,
                cell: (runtime) =>
                  !runtime.removedAt && (
                    <>
                      <ActionForm
                        label={`Add label to ${runtime.name}`}
                        submit={async (fields) => {
                          const label = field(fields, "label") ?? "";
                          await rpc.runtimes.tag.mutate({ orgId: org.id, runtimeId: runtime.id, label });
                          runtimes.reload();
                          return `Labelled ${label}.`;
                        }}
                      >
                        <label>
                          Label
                          <input name="label" required />
                        </label>
                      </ActionForm>
                      <ActionButton
                        label={`Remove ${runtime.name}`}
                        kind="danger"
                        confirm={`Remove ${runtime.name}? Runs that named it keep its name.`}
                        run={async () => {
                          await rpc.runtimes.remove.mutate({ orgId: org.id, runtimeId: runtime.id });
                          runtimes.reload();
                          return `Removed ${runtime.name}.`;
                        }}
                      />
                    </>
                  ),
              },
            ]}
          />
        )}
      </Show>
      <h2>Register a runtime</h2>
      <ActionForm
        label="Register runtime"
        submit={async (fields) => {
          const labels =
            field(fields, "labels")
              ?.split(",")
              .map((label) => label.trim())
              .filter(Boolean) ?? [];
          const runtime = await rpc.runtimes.register.mutate({ orgId: org.id, name: field(fields, "name") ?? "", labels });
          runtimes.reload();
          return `Registered ${runtime.name}.`;
        }}
      >
        <label>
          Name
          <input name="name" required placeholder="linux-large" />
        </label>
        <label>
          Labels (comma-separated)
          <input name="labels" placeholder="gpu, region=eu" />
        </label>
      </ActionForm>
    </>
  );
}

/** A label as a chip, taken off by its own small button (named "Remove label gpu" for whoever cannot see the cross). */
function LabelChip({ label, remove }: { label: string; remove: (() => Promise<string>) | null }) {
  const action = useAction(remove ?? (async () => ""));
  return (
    <span class="label">
      {label}
      {remove && (
        <button
          type="button"
          class="chip-remove"
          aria-label={`Remove label ${label}`}
          title={`Remove label ${label}`}
          disabled={action.pending}
          onClick={() => void action.start()}
        >
          ×
        </button>
      )}
      <OutcomeNote outcome={action.outcome} pending={action.pending} />
    </span>
  );
}
