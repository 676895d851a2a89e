// Engine and CLI tokens: create an engine token (its value shown once), see each CLI token's person
// and what it may do now, revoke.
import { useState } from "preact/hooks";
import { ActionButton, ActionForm, ShownOnce, field } from "../components/actions";
import { Show } from "../components/feedback";
import { RevokedOr, Time } from "../components/time";
import { ShowMore, usePaged } from "../components/paged";
import { Table } from "../components/table";
import { rpc } from "../rpc";
import type { OrgView } from "../session";

export function TokensPage({ view }: { view: OrgView }) {
  const { org } = view;
  const tokens = usePaged((cursor) => rpc.tokens.list.query({ orgId: org.id, cursor }), [org.id]);
  const [created, setCreated] = useState<string | null>(null);
  return (
    <>
      <h1>Tokens</h1>
      <h2>All tokens</h2>
      <Show loaded={tokens}>
        {(rows) => (
          <Table
            rows={rows}
            rowKey={(token) => token.id}
            empty={
              <>
                No tokens yet. Create an engine token below, or sign in the CLI with <code>svc login</code>.
              </>
            }
            columns={[
              {
                header: "Name",
                cell: (token) => (
                  <>
                    {token.name}
                    {token.fromRepositoryClaim && <span class="muted"> (repository claim)</span>}
                  </>
                ),
              },
              { header: "Kind", cell: (token) => token.kind },
              { header: "Prefix", cell: (token) => <code>{token.prefix}</code> },
              { header: "Person", cell: (token) => (token.person ? (token.person.login ?? "closed account") : <span class="muted">none</span>) },
              {
                header: "Scopes (effective now)",
                cell: (token) =>
                  token.kind === "cli" ? (
                    token.scopes.map((scope) => {
                      const held = (token.effectiveScopes as string[]).includes(scope);
                      return (
                        <div key={scope} class={held ? undefined : "muted"}>
                          {scope}
                          {held ? "" : " (not held by the role now)"}
                        </div>
                      );
                    })
                  ) : (
                    <span class="muted">engine</span>
                  ),
              },
              { header: "Last used", cell: (token) => <Time at={token.lastUsedAt} /> },
              { header: "Expires", cell: (token) => <Time at={token.expiresAt} lapsed="expired" /> },
              {
                header: "State",
                cell: (token) => (
                  <RevokedOr at={token.revokedAt}>
                    <ActionButton
                      label="Revoke"
                      kind="danger"
                      confirm={`Revoke ${token.name}?`}
                      run={async () => {
                        await rpc.tokens.revoke.mutate({ orgId: org.id, tokenId: token.id });
                        tokens.reload();
                        return "Revoked.";
                      }}
                    />
                  </RevokedOr>
                ),
              },
            ]}
          />
        )}
      </Show>
      <ShowMore paged={tokens} />
      <h2>Create an engine token</h2>
      <p class="muted">
        An engine token lets an engine report events and claim work for this organization. CLI tokens come from <code>svc login</code>.
      </p>
      <ActionForm
        label="Create token"
        submit={async (fields) => {
          setCreated(null);
          const token = await rpc.tokens.create.mutate({ orgId: org.id, name: field(fields, "name") ?? "" });
          setCreated(token.token);
          tokens.reload();
          return `Created ${token.name}.`;
        }}
      >
        <label>
          Name
          <input name="name" required placeholder="ci engine" />
        </label>
      </ActionForm>
      {created && <ShownOnce label="The new engine token" value={created} />}
    </>
  );
}
