// Signed in, but in no organization yet: install the App on an account, or wait for an invitation.
import { useContext } from "preact/hooks";
import { ActionButton } from "../components/actions";
import { SessionContext } from "../session";

export function WaitingPage() {
  const { session, refresh } = useContext(SessionContext)!;
  return (
    <div class="panel">
      <h1>You belong to no organization yet</h1>
      <p>
        An organization appears when the App is installed on a code-host account you administer; its first administrator to sign in becomes its owner. Or ask
        someone in an existing organization to invite you, and open the link they send.
      </p>
      {session.installUrl ? (
        <p>
          <a class="button" href={session.installUrl}>
            Install the App
          </a>
        </p>
      ) : (
        <p class="muted">This control plane has no install link configured; ask its operator how to install the App.</p>
      )}
      <ActionButton
        label="Check again"
        run={async () => {
          await refresh();
          return "Checked: still waiting.";
        }}
      />
    </div>
  );
}
