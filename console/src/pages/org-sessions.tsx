// The live sessions of the organization's members: sign one out, or a person everywhere.
import { ActionButton } from "../components/actions";
import { Empty, Show } from "../components/feedback";
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
        {(rows) =>
          rows.length === 0 ? (
            <Empty>No member is signed in right now.</Empty>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th>Person</th>
                    <th>Signed in</th>
                    <th>Last seen</th>
                    <th>Address</th>
                    <th>Browser</th>
                    <th>Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((session) => (
                    <tr key={session.id}>
                      <td>
                        {session.login ?? session.personId}
                        {session.current && <span class="muted"> (this browser)</span>}
                      </td>
                      <td>
                        <Time at={session.createdAt} />
                      </td>
                      <td>
                        <Time at={session.lastSeenAt} />
                      </td>
                      <td>{session.clientAddress ?? <span class="muted">unknown</span>}</td>
                      <td class="muted">{session.userAgent ?? ""}</td>
                      <td>
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
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Show>
    </>
  );
}
