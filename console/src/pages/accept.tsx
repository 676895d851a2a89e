// The invitation link (/invitations/accept?token=...): signed in, see what it offers (organization,
// role, inviter: invitations.preview) and accept it; signed out, the token waits in this tab while
// the person signs in, and `/` brings them back here.
import { ActionButton } from "../components/actions";
import { Show } from "../components/feedback";
import { Link } from "../components/link";
import { Time } from "../components/time";
import { useLoad } from "../load";
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
  return <Invitation token={token} session={session} refresh={refresh} />;
}

/** Signed in: what the link offers, from the server (its refusal, in accepting's words, when it offers nothing), then Accept. */
function Invitation({ token, session, refresh }: Props & { token: string; session: Session }) {
  const offer = useLoad(() => rpc.invitations.preview.query({ token }), [token]);
  return (
    <main class="narrow">
      <div class="panel">
        <h1>You are invited</h1>
        <Show loaded={offer}>
          {(invitation) => (
            <>
              <p data-testid="invitation-offer">
                {invitation.invitedBy ? <strong>{invitation.invitedBy}</strong> : "You are"}
                {invitation.invitedBy ? " invites you" : " invited"} to join <strong>{invitation.organization.name}</strong> as{" "}
                <strong>{invitation.role}</strong>.{" "}
                <span class="muted">
                  (The link stops working <Time at={invitation.expiresAt} />
                  .)
                </span>
              </p>
              <p>
                Signed in as <strong>{session.person.login ?? session.person.email}</strong>. Accepting makes this account a {invitation.role} of{" "}
                {invitation.organization.name}.
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
            </>
          )}
        </Show>
        {offer.failure?.status === 403 && (
          <p>
            Changed your public e-mail on the code host since you signed in? Read it again (the code host does not ask you to sign in again), and come back
            here:{" "}
            <a class="button" href="/auth/signin" onClick={() => sessionStorage.setItem(PENDING, token)}>
              Read my e-mail from the code host again
            </a>
          </p>
        )}
        <p>
          <Link href="/">Go to the console</Link>
        </p>
      </div>
    </main>
  );
}
