// The model clients (editors, desktop assistants) the signed-in person connected to this
// organization through the /mcp consent: what each is, when it was last used; disconnect one.
import { ActionButton } from "../components/actions";
import { Show } from "../components/feedback";
import { Table } from "../components/table";
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
        {(rows) => (
          <Table
            rows={rows}
            rowKey={(client) => client.grantId}
            empty="You have connected no model client to this organization."
            columns={[
              { header: "Client", cell: (client) => client.clientName },
              { header: "Answers at", cell: (client) => client.redirectUri, props: () => ({ class: "muted" }) },
              { header: "Connected", cell: (client) => <Time at={client.connectedAt} /> },
              { header: "Last used", cell: (client) => (client.lastUsedAt ? <Time at={client.lastUsedAt} /> : <span class="muted">never</span>) },
              { header: "Expires", cell: (client) => <Time at={client.expiresAt} lapsed="expired" /> },
              {
                header: "Actions",
                cell: (client) => (
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
                ),
              },
            ]}
          />
        )}
      </Show>
    </>
  );
}
