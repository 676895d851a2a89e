// The live sessions of the organization's members: sign one out, or a person everywhere.
import { ActionButton } from "../components/actions";
import { Show } from "../components/feedback";
import { Table } from "../components/table";
import { Time } from "../components/time";
import { useLoad } from "../load";
import { rpc } from "../rpc";
import type { OrgView } from "../session";

export function OrgSessionsPage({ view }: { view: OrgView }) {
  const { org } = view;
  const sessions = useLoad(() => rpc.sessions.list.query({ orgId: org.id }), [org.id]);
  return (
    <>
      <h1>Sessions</h1>
      <p class="muted">Browser sessions of this organization's members. Signing someone out takes effect on their next request.</p>
      <Show loaded={sessions}>
        {(rows) => (
          <Table
            rows={rows}
            rowKey={(session) => session.id}
            empty="No member is signed in right now."
            columns={[
              {
                header: "Person",
                cell: (session) => (
                  <>
                    {session.login ?? session.personId}
                    {session.current && <span class="muted"> (this browser)</span>}
                  </>
                ),
              },
              { header: "Signed in", cell: (session) => <Time at={session.createdAt} /> },
              { header: "Last seen", cell: (session) => <Time at={session.lastSeenAt} /> },
              { header: "Address", cell: (session) => session.clientAddress ?? <span class="muted">unknown</span> },
              { header: "Browser", cell: (session) => session.userAgent ?? "", props: () => ({ class: "muted" }) },
              {
                header: "Actions",
                cell: (session) => (
                  <div class="row-actions">
                    <ActionButton
                      label="Sign out"
                      confirm="Sign out this session?"
                      kind="danger"
                      run={async () => {
                        await rpc.sessions.signOut.mutate({ orgId: org.id, sessionId: session.id });
                        sessions.reload();
                        return "Signed out.";
                      }}
                    />
                    <ActionButton
                      label="Sign out everywhere"
                      confirm={`Sign ${session.login ?? "this person"} out of every browser?`}
                      kind="danger"
                      run={async () => {
                        const { ended } = await rpc.sessions.signOutAll.mutate({ orgId: org.id, personId: session.personId });
                        sessions.reload();
                        return `Ended ${ended} session(s).`;
                      }}
                    />
                  </div>
                ),
              },
            ]}
          />
        )}
      </Show>
    </>
  );
}
