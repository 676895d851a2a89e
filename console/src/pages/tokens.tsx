// Engine and CLI tokens: create an engine token (its value shown once), see each CLI token's person
// and what it may do now, revoke.
import { useState } from "preact/hooks";
import { ActionButton, ActionForm, ShownOnce, field } from "../components/actions";
import { Empty, Show } from "../components/feedback";
import { Time } from "../components/time";
import { ShowMore, usePaged } from "../components/paged";
import { rpc } from "../rpc";
import type { OrgView } from "../session";

export function TokensPage({ view }: { view: OrgView }) {
  const { org } = view;
  const tokens = usePaged((cursor) => rpc.tokens.list.query({ orgId: org.id, cursor }), [org.id]);
  const [created, setCreated] = useState<string | null>(null);
  return (
    <>
      <h1>Tokens</h1>
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
      <h2>All tokens</h2>
      <Show loaded={tokens}>
        {(rows) =>
          rows.length === 0 ? (
            <Empty>
              No tokens yet. Create an engine token above, or sign in the CLI with <code>svc login</code>.
            </Empty>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Kind</th>
                    <th>Prefix</th>
                    <th>Person</th>
                    <th>Scopes (effective now)</th>
                    <th>Last used</th>
                    <th>Expires</th>
                    <th>State</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((token) => (
                    <tr key={token.id}>
                      <td>
                        {token.name}
                        {token.fromRepositoryClaim && <span class="muted"> (repository claim)</span>}
                      </td>
                      <td>{token.kind}</td>
                      <td>
                        <code>{token.prefix}</code>
                      </td>
                      <td>{token.person ? (token.person.login ?? "closed account") : <span class="muted">none</span>}</td>
                      <td>
                        {token.kind === "cli" ? (
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
                        )}
                      </td>
                      <td>
                        <Time at={token.lastUsedAt} />
                      </td>
                      <td>
                        <Time at={token.expiresAt} />
                      </td>
                      <td>
                        {token.revokedAt ? (
                          <>
                            revoked <Time at={token.revokedAt} />
                          </>
                        ) : (
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
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Show>
      <ShowMore paged={tokens} />
    </>
  );
}
