// Signed out: the sign-in link; and when this browser's session was ended by an organization's
// deletion (GET /auth/ended), what was deleted, when, and until when the export link works.
import type { DeletedNotice } from "../../../worker/deletion/notice";
import { Time } from "../components/time";
import { useLoad } from "../load";
import { authCall } from "../rpc";

export function SignInPage() {
  const ended = useLoad(() => authCall<{ deleted: DeletedNotice | null }>("/auth/ended").catch(() => null), []);
  const deleted = ended.data?.deleted ?? null;
  return (
    <main class="narrow">
      {deleted && <Deleted notice={deleted} />}
      <div class="panel">
        {deleted ? <h2>Sign in again</h2> : <h1>Sign in</h1>}
        <p>
          {deleted
            ? "Your other organizations, if you have any, are as they were: sign in to reach them."
            : "Sign in with your code-host account to see your organization's environments, workloads and people."}
        </p>
        <p>
          <a class="button" href="/auth/signin">
            Sign in with the code host
          </a>
        </p>
      </div>
    </main>
  );
}

function Deleted({ notice }: { notice: DeletedNotice }) {
  return (
    <section class="panel" aria-labelledby="deleted-heading">
      <h1 id="deleted-heading">{notice.organization.name} was deleted</h1>
      <p>
        An owner asked for the deletion of <strong>{notice.organization.name}</strong> (<code>{notice.organization.slug}</code>){" "}
        <Time at={notice.requestedAt} />; it was carried out, and this browser was signed out, <Time at={notice.signedOutAt} />. Its tokens, claims, sessions
        and provider keys no longer work, and its data is being removed.
      </p>
      <p data-testid="export-until">
        {notice.exportGone ? (
          "The export link shown to the owner who asked for the deletion works no more: its export expired or was destroyed."
        ) : notice.exportUntil ? (
          <>
            The export link shown to the owner who asked for the deletion stops working <Time at={notice.exportUntil} />.
          </>
        ) : (
          "The export is still being taken; the link shown to the owner who asked for the deletion works once it is, for a week."
        )}
      </p>
    </section>
  );
}
