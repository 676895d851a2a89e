// The model clients (editors, desktop assistants) the signed-in person connected to this
// organization through the /mcp consent: what each is, when it was last used; disconnect one.
import { ActionButton } from "../components/actions";
import { Empty, Show } from "../components/feedback";
import { Time } from "../components/time";
import { useLoad } from "../load";
import { rpc } from "../rpc";
import type { OrgView } from "../session";

export function ConnectedClientsPage({ view }: { view: OrgView }) {
  const { org } = view;
  const clients = useLoad(() => rpc.connectedClients.list.query({ orgId: org.id }), [org.id]);
  return (
    <>
      <h1>Connected clients</h1>
      <p class="muted">
        Model clients you allowed to act for you in this organization through <code>{`${location.origin}/mcp`}</code>. Each acts with your role here, checked at
        every call. Disconnecting one stops its access at once.
      </p>
      <Show loaded={clients}>
        {(rows) =>
          rows.length === 0 ? (
            <Empty>You have connected no model client to this organization.</Empty>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th>Client</th>
                    <th>Answers at</th>
                    <th>Connected</th>
                    <th>Last used</th>
                    <th>Expires</th>
                    <th>Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((client) => (
                    <tr key={client.grantId}>
                      <td>{client.clientName}</td>
                      <td class="muted">{client.redirectUri}</td>
                      <td>
                        <Time at={client.connectedAt} />
                      </td>
                      <td>{client.lastUsedAt ? <Time at={client.lastUsedAt} /> : <span class="muted">never</span>}</td>
                      <td>
                        <Time at={client.expiresAt} />
                      </td>
                      <td>
                        <div class="row-actions">
                          <ActionButton
                            label="Disconnect"
                            confirm={`Disconnect ${client.clientName}? It stops working at once.`}
                            kind="danger"
                            run={async () => {
                              await rpc.connectedClients.revoke.mutate({ orgId: org.id, grantId: client.grantId });
                              clients.reload();
                              return "Disconnected.";
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
