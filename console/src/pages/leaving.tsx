// Leaving cleanly: the audit log as a download, data exports (take one, download it), and the
// organization's deletion (request it by typing the slug, follow its steps, call it off while it waits).
import { bytes } from "../components/units";
import { AuditDownload } from "./audit";
import { useState } from "preact/hooks";
import { ActionButton, ActionForm, ShownOnce, field } from "../components/actions";
import { Show } from "../components/feedback";
import { Time } from "../components/time";
import { useLoad } from "../load";
import { ShowMore, usePaged } from "../components/paged";
import { Table } from "../components/table";
import { rpc } from "../rpc";
import type { OrgView } from "../session";

export function LeavingPage({ view }: { view: OrgView }) {
  const { org, can } = view;
  return (
    <>
      <h1>Leaving</h1>
      {can("audit.export") && (
        <>
          <h2>Audit log</h2>
          <AuditDownload orgId={org.id} />
        </>
      )}
      {can("data.export") && <DataExports orgId={org.id} />}
      {can("organization.delete") && <Deletion orgId={org.id} slug={org.slug} />}
    </>
  );
}

function DataExports({ orgId }: { orgId: string }) {
  const exports = usePaged((cursor) => rpc.exports.list.query({ orgId, cursor }), [orgId]);
  return (
    <>
      <h2>Data exports</h2>
      <p class="muted">A copy of the organization's configuration and history as one JSON document; token and key values are never included.</p>
      <ActionButton
        kind="primary"
        label="Take a data export"
        run={async () => {
          const taken = await rpc.exports.create.mutate({ orgId });
          exports.reload();
          return `Export taken (${bytes(taken.sizeBytes)}).`;
        }}
      />
      <Show loaded={exports}>
        {(rows) => (
          <Table
            rows={rows}
            rowKey={(row) => row.id}
            empty="No export taken yet."
            columns={[
              { header: "Taken", cell: (row) => <Time at={row.createdAt} /> },
              { header: "By", cell: (row) => row.requestedBy ?? <span class="muted">closed account</span> },
              { header: "Size", cell: (row) => (row.sizeBytes === null ? "" : bytes(row.sizeBytes)) },
              {
                header: "Download",
                cell: (row) =>
                  row.download ? (
                    <a href={row.download} download>
                      Download
                    </a>
                  ) : (
                    <span class="muted">did not finish; take another</span>
                  ),
              },
            ]}
          />
        )}
      </Show>
      <ShowMore paged={exports} />
    </>
  );
}

function Deletion({ orgId, slug }: { orgId: string; slug: string }) {
  const status = useLoad(() => rpc.deletion.status.query({ orgId }), [orgId]);
  const [exportLink, setExportLink] = useState<string | null>(null);
  return (
    <section class="danger-zone" aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete the organization</h2>
      <Show loaded={status}>
        {({ deletion, paidUntil }) => (
          <>
            {(!deletion || deletion.calledOffAt) && (
              <ActionForm
                label="Delete this organization"
                kind="danger"
                submit={async (fields) => {
                  const requested = await rpc.deletion.request.mutate({ orgId, confirm: field(fields, "confirm") ?? "" });
                  setExportLink(requested.exportLink);
                  status.reload();
                  return "Deletion requested: it runs in steps, shown below.";
                }}
              >
                <p class="muted">
                  Environments stop, the subscription ends at its period's end, then credentials are revoked, a last export is taken and everything is deleted.
                </p>
                {paidUntil && (
                  <p data-testid="deletion-hold">
                    An active subscription holds the deletion until <Time at={paidUntil} />, the end of its paid period (no refund): until then everything stays
                    readable and the deletion can be called off.
                  </p>
                )}
                <label>
                  Type the slug <code>{slug}</code> to confirm
                  <input name="confirm" required autoComplete="off" />
                </label>
              </ActionForm>
            )}
            {exportLink && (
              <ShownOnce
                label="The link to the organization's last export (works for 7 days once the export step has run; it is shown only now)"
                value={exportLink}
              />
            )}
            {deletion && (
              <dl class="facts" data-testid="deletion">
                <dt>Requested</dt>
                <dd>
                  <Time at={deletion.requestedAt} />
                </dd>
                {deletion.calledOffAt ? (
                  <>
                    <dt>Called off</dt>
                    <dd>
                      <Time at={deletion.calledOffAt} />
                    </dd>
                  </>
                ) : (
                  <>
                    <dt>Next step</dt>
                    <dd>
                      <code data-testid="next-step">{deletion.nextStep}</code>
                    </dd>
                  </>
                )}
                {deletion.waitUntil && (
                  <>
                    <dt>Waits until</dt>
                    <dd>
                      <Time at={deletion.waitUntil} />
                    </dd>
                  </>
                )}
                {deletion.nextStep === "delete" && (
                  <>
                    <dt>Removed so far</dt>
                    <dd data-testid="rows-removed">
                      {deletion.rowsRemoved.toLocaleString()} rows <span class="muted">(in batches, over as many sweeps as it takes)</span>
                    </dd>
                  </>
                )}
                {deletion.lastError && (
                  <>
                    <dt>Last failure</dt>
                    <dd>
                      {deletion.lastError}{" "}
                      <span class="muted">
                        ({deletion.failedAttempts} attempts; next <Time at={deletion.nextAttemptAt} />)
                      </span>
                    </dd>
                  </>
                )}
                <dt>Steps done</dt>
                <dd>
                  {deletion.steps.length === 0 ? (
                    <span class="muted">none yet</span>
                  ) : (
                    <ol>
                      {deletion.steps.map((step) => (
                        <li key={step.step}>
                          <code>{step.step}</code> <Time at={step.doneAt} />: {step.note}
                        </li>
                      ))}
                    </ol>
                  )}
                </dd>
              </dl>
            )}
            {deletion && !deletion.calledOffAt && (
              <ActionButton
                label="Call off the deletion"
                confirm="Call off the deletion and keep the organization?"
                run={async () => {
                  const outcome = await rpc.deletion.callOff.mutate({ orgId });
                  status.reload();
                  const ending = outcome.subscriptionsStillEnding;
                  return ending.length === 0
                    ? "Deletion called off."
                    : `Deletion called off; the billing provider did not resume ${ending.join(", ")}, which still ends at its period's end.`;
                }}
              />
            )}
          </>
        )}
      </Show>
    </section>
  );
}
