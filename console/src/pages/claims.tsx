// Repository claims: which repositories' workflows may exchange identity tokens for engine tokens.
// Claiming stays with the CLI; revoking one kills every engine token minted through it. A claim made
// before claims needed proof is marked unproven, with how to prove it.
import { ActionButton } from "../components/actions";
import { Show } from "../components/feedback";
import { RevokedOr, Time } from "../components/time";
import { Table } from "../components/table";
import { useLoad } from "../load";
import { rpc } from "../rpc";
import type { OrgView } from "../session";

export function ClaimsPage({ view }: { view: OrgView }) {
  const { org } = view;
  const claims = useLoad(() => rpc.claims.list.query({ orgId: org.id }), [org.id]);
  return (
    <>
      <h1>Repository claims</h1>
      <Show loaded={claims}>
        {({ audience, claims: rows }) => (
          <>
            <p>
              Workflows request identity tokens for the audience <code>{audience}</code>.
            </p>
            <Table
              rows={rows}
              rowKey={(claim) => claim.id}
              empty={
                <>
                  No repository is claimed. Claim one from the command line with a CLI token holding tokens.manage (<code>svc login --scope tokens.manage</code>
                  , then <code>POST /v1/oidc/bindings</code>).
                </>
              }
              columns={[
                {
                  header: "Repository",
                  cell: (claim) => (
                    <>
                      {claim.repository}
                      {claim.unproven && (
                        <p>
                          <strong class="flag danger">Unproven</strong> Claimed before claims needed proof, so its workflows get no engine tokens. Prove that
                          this organization controls it by claiming it again (<code>POST /v1/oidc/bindings</code>): with the App installed on its owner it is
                          proven at once; otherwise the answer names a one-time audience for a workflow of the repository to exchange.
                        </p>
                      )}
                    </>
                  ),
                },
                { header: "Claimed", cell: (claim) => <Time at={claim.createdAt} /> },
                { header: "Last used", cell: (claim) => <Time at={claim.lastUsedAt} /> },
                {
                  header: "State",
                  cell: (claim) => (
                    <RevokedOr at={claim.revokedAt}>
                      <ActionButton
                        label="Revoke"
                        kind="danger"
                        confirm={`Revoke the claim on ${claim.repository}? Its engine tokens stop working.`}
                        run={async () => {
                          const revoked = await rpc.claims.revoke.mutate({ orgId: org.id, claimId: claim.id });
                          claims.reload();
                          return `Revoked; ${revoked.tokensRevoked} engine token(s) stopped working.`;
                        }}
                      />
                    </RevokedOr>
                  ),
                },
              ]}
            />
          </>
        )}
      </Show>
    </>
  );
}
