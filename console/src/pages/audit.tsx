// The audit log, newest first, a page at a time ("Show more"); for those who may export it, the whole
// log as a download and a check of its hash chain.
import { ActionButton } from "../components/actions";
import { auditDetails, auditSentence } from "../components/audit-sentence";
import { Show } from "../components/feedback";
import { Time } from "../components/time";
import { ShowMore, usePaged } from "../components/paged";
import { Table } from "../components/table";
import { rpc } from "../rpc";
import type { OrgView } from "../session";

const PAGE = 50;

export function AuditPage({ view }: { view: OrgView }) {
  const { org, can } = view;
  const entries = usePaged((cursor) => rpc.audit.list.query({ orgId: org.id, limit: PAGE, cursor }), [org.id]);
  return (
    <>
      <h1>Audit log</h1>
      {can("audit.export") && <AuditDownload orgId={org.id} />}
      {can("audit.export") && (
        <ActionButton
          label="Verify the chain"
          run={async () => {
            // A call checks a bounded stretch of the chain; each continues from the hash the last one verified.
            let check = await rpc.audit.verify.query({ orgId: org.id });
            let entries = check.entries;
            while (check.next) {
              check = await rpc.audit.verify.query({ orgId: org.id, after: check.next });
              entries += check.entries;
            }
            if (!check.intact) throw new Error(`The chain is broken at entry ${check.brokenAt}; report this to the operator.`);
            return `Intact: ${entries} entries; the newest is #${check.head?.seq ?? 0} (${check.head?.hash ?? "none"}).`;
          }}
        />
      )}
      <Show loaded={entries}>
        {(rows) => (
          <Table
            rows={rows}
            rowKey={(entry) => entry.seq}
            empty="Nothing recorded yet: sign-ins, tokens, members and environments changes appear here as they happen."
            columns={[
              { header: "#", cell: (entry) => entry.seq },
              { header: "When", cell: (entry) => <Time at={entry.at} /> },
              // A sentence, its action's code on hover and in the markup (an export is searched by it).
              {
                header: "What happened",
                cell: (entry) => auditSentence({ ...entry, data: entry.data as Record<string, unknown> | null }),
                props: (entry) => ({ title: entry.action, "data-action": entry.action }),
              },
              { header: "Details", cell: (entry) => <span class="muted">{auditDetails(entry.data as Record<string, unknown> | null)}</span> },
            ]}
          />
        )}
      </Show>
      <ShowMore paged={entries} />
    </>
  );
}

/** The whole log as a file (offered here and on Leaving). */
export function AuditDownload({ orgId }: { orgId: string }) {
  return (
    <p>
      <a href={`/console/api/audit/export?orgId=${encodeURIComponent(orgId)}`} download>
        Download the audit log
      </a>{" "}
      <span class="muted">
        (NDJSON with the chain's head; check it offline with <code>svc audit verify</code>)
      </span>
    </p>
  );
}
