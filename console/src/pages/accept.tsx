// The invitation link (/invitations/accept?token=...): signed in, accept it; signed out, the token
// waits in this tab while the person signs in, and `/` brings them back here.
import { ActionButton } from "../components/actions";
import { Link } from "../components/link";
import { rpc } from "../rpc";
import type { Session } from "../session";

const PENDING = "console:pending-invitation";

export function takePendingInvitation(): string | null {
  const token = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  return token;
}

interface Props {
  token: string | null;
  session: Session | null;
  refresh: () => Promise<void>;
}

export function AcceptInvitationPage({ token, session, refresh }: Props) {
  if (!token) {
    return (
      <main class="narrow">
        <div class="panel">
          <h1>Invitation</h1>
          <p role="alert">This link carries no invitation token; open the whole link from the invitation.</p>
        </div>
      </main>
    );
  }
  if (!session) {
    return (
      <main class="narrow">
        <div class="panel">
          <h1>You are invited</h1>
          <p>Sign in with your code-host account first; you come back here to accept.</p>
          <p>
            <a class="button" href="/auth/signin" onClick={() => sessionStorage.setItem(PENDING, token)}>
              Sign in to accept
            </a>
          </p>
        </div>
      </main>
    );
  }
  return (
    <main class="narrow">
      <div class="panel">
        <h1>You are invited</h1>
        <p>
          Signed in as <strong>{session.person.login ?? session.person.email}</strong>. Accepting makes this account a member of the inviting organization.
        </p>
        <ActionButton
          kind="primary"
          label="Accept the invitation"
          run={async () => {
            const joined = await rpc.invitations.accept.mutate({ token });
            await refresh();
            return `You joined ${joined.organization.name} as ${joined.role}.`;
          }}
        />
        <p>
          <Link href="/">Go to the console</Link>
        </p>
      </div>
    </main>
  );
}
