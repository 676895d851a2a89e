// What a person is told: progress, a result, a refusal in the server's own words, and for an
// unexpected failure the request id to report.
import type { ComponentChildren } from "preact";
import { HeardContext, type Loaded, type Outcome } from "../load";
import type { Failure } from "../rpc";

/** A sentence of the server's, its `names` in backticks drawn as code (never as literal backticks). */
export function Sentence({ text }: { text: string }) {
  return <>{text.split("`").map((part, index) => (index % 2 === 1 ? <code key={index}>{part}</code> : part))}</>;
}

export function FailureNote({ failure, id }: { failure: Failure; id?: string }) {
  return (
    <p role="alert" class="danger" id={id}>
      <Sentence text={failure.message} />
      {failure.requestId && (
        <>
          {" "}
          <span class="muted">
            (request id <code>{failure.requestId}</code>)
          </span>
        </>
      )}
    </p>
  );
}

export function OutcomeNote({ outcome, pending, id }: { outcome: Outcome | null; pending: boolean; id?: string }) {
  if (pending)
    return (
      <p role="status" class="muted">
        Working...
      </p>
    );
  if (!outcome) return <p role="status" class="sr-only" />;
  return outcome.ok ? (
    <p role="status" class="ok">
      {outcome.message}
    </p>
  ) : (
    <FailureNote failure={outcome.failure} {...(id ? { id } : {})} />
  );
}

/** A page's data: loading, its failure, or the content made from it. */
export function Show<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (loaded.failure) return <FailureNote failure={loaded.failure} />;
  if (loaded.data === undefined)
    return (
      <p role="status" class="muted">
        Loading...
      </p>
    );
  // Reloading after an action: the shown data stays, marked busy until the new answer replaces it.
  return (
    <div class="loaded" aria-busy={loaded.loading}>
      <HeardContext.Provider value={loaded.heard}>{children(loaded.data)}</HeardContext.Provider>
    </div>
  );
}

/** What to do when a list is empty (class "empty": the e2e test finds every page's empty sentence by it). */
export const Empty = ({ children }: { children: ComponentChildren }) => <p class="panel muted empty">{children}</p>;
