// The signed-in person: their sessions (GET /auth/sessions), signing this browser out, and closing
// the account (refused, with the reason, for the last owner of an organization).
import { useContext } from "preact/hooks";
import { ActionButton, ActionForm, field } from "../components/actions";
import { Show } from "../components/feedback";
import { Table } from "../components/table";
import { Time } from "../components/time";
import { useLoad } from "../load";
import { navigate } from "../router";
import { authCall, rpc } from "../rpc";
import { SessionContext, signOut } from "../session";

interface OwnSession {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  clientAddress: string | null;
  userAgent: string | null;
  current: boolean;
}

export function AccountPage() {
  const { session, refresh } = useContext(SessionContext)!;
  const { person, organizations } = session;
  const sessions = useLoad(async () => (await authCall<{ sessions: OwnSession[] }>("/auth/sessions"))?.sessions ?? [], []);
  const name = person.login ?? person.email ?? person.id;
  return (
    <>
      <h1>Your account</h1>
      <dl class="facts">
        <dt>Login</dt>
        <dd>{person.login ?? "none"}</dd>
        <dt>Name</dt>
        <dd>{person.name ?? "not given"}</dd>
        <dt>Email</dt>
        <dd>{person.email ?? "not given"}</dd>
        <dt>Organizations</dt>
        <dd>{organizations.length ? organizations.map((org) => `${org.name} (${org.role})`).join(", ") : "none yet"}</dd>
      </dl>
      <h2>Your sessions</h2>
      <Show loaded={sessions}>
        {(rows) => (
          <Table
            rows={rows}
            rowKey={(row) => row.id}
            columns={[
              {
                header: "Signed in",
                cell: (row) => (
                  <>
                    <Time at={row.createdAt} />
                    {row.current && <strong> (this browser)</strong>}
                  </>
                ),
              },
              { header: "Last seen", cell: (row) => <Time at={row.lastSeenAt} /> },
              { header: "Address", cell: (row) => row.clientAddress ?? <span class="muted">unknown</span> },
              { header: "Browser", cell: (row) => row.userAgent ?? "", props: () => ({ class: "muted" }) },
            ]}
          />
        )}
      </Show>
      <ActionButton
        label="Sign out of this browser"
        run={async () => {
          await signOut();
          await refresh();
          navigate("/");
          return "Signed out.";
        }}
      />
      <section class="danger-zone" aria-labelledby="close-heading">
        <h2 id="close-heading">Close your account</h2>
        <p>
          Closing removes you from every organization, revokes your command-line tokens, signs you out everywhere and erases your name, address and code-host
          identity. The last owner of an organization cannot close their account: make someone else an owner first.
        </p>
        <ActionForm
          label="Close my account"
          kind="danger"
          submit={async (fields) => {
            if (field(fields, "confirm") !== name) throw new Error(`Type ${name} to confirm.`);
            const closed = await rpc.account.close.mutate({ confirm: name });
            await refresh();
            return `Your account is closed; you left ${closed.organizationsLeft} organization(s).`;
          }}
        >
          <label>
            Type <strong>{name}</strong> to confirm
            <input name="confirm" required autoComplete="off" />
          </label>
        </ActionForm>
      </section>
    </>
  );
}
