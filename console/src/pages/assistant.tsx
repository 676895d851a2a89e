// The website assistant (owners only, while the operator set its model key): a question, the answer
// as it streams in, the documentation pages it cites, and what is left of today's limits.
import { useState } from "preact/hooks";
import { FailureNote, Show } from "../components/feedback";
import { Time } from "../components/time";
import { useLoad } from "../load";
import { currentCsrfToken, describeFailure, rpc, type Failure } from "../rpc";
import type { OrgView, Session } from "../session";

/** Whether the assistant is offered in the organization: on in this installation, and the person an owner there. */
export const assistantOffered = (view: OrgView | null, session: Session): boolean => session.assistantOn && view?.org.role === "owner";

interface Source {
  title: string;
  url: string;
}

interface Answer {
  sources: Source[];
  text: string;
  done: boolean;
}

/** Server-sent events out of the answer's body, each handed over as it completes. */
async function readEvents(body: ReadableStream<Uint8Array>, onEvent: (name: string, data: any) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    pending += decoder.decode(value, { stream: true });
    const blocks = pending.split("\n\n");
    pending = blocks.pop() ?? "";
    for (const block of blocks) {
      const name = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (name && data) onEvent(name, JSON.parse(data));
    }
  }
}

export function AssistantPage({ view }: { view: OrgView }) {
  const { org } = view;
  const status = useLoad(() => rpc.assistant.status.query({ orgId: org.id }), [org.id]);
  const [question, setQuestion] = useState("");
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [pending, setPending] = useState(false);

  const ask = async () => {
    setPending(true);
    setFailure(null);
    setAnswer(null);
    try {
      const response = await fetch("/console/api/assistant", {
        method: "POST",
        headers: { "content-type": "application/json", "x-svc-csrf": currentCsrfToken() },
        body: JSON.stringify({ orgId: org.id, question }),
      });
      if (!response.ok || !response.body) {
        const body = (await response.json().catch(() => null)) as { error?: string } | null;
        setFailure({
          message: body?.error ?? `The control plane answered ${response.status}.`,
          requestId: response.status >= 500 ? response.headers.get("x-request-id") : null,
        });
        return;
      }
      await readEvents(response.body, (name, data) => {
        if (name === "sources") setAnswer({ sources: data.sources, text: "", done: false });
        else if (name === "delta") setAnswer((previous) => previous && { ...previous, text: previous.text + data.text });
        else if (name === "usage") setAnswer((previous) => previous && { ...previous, done: true });
        else if (name === "error") setFailure({ message: data.error, requestId: null });
      });
    } catch (error) {
      setFailure(describeFailure(error));
    } finally {
      setPending(false);
      status.reload();
    }
  };

  return (
    <>
      <h1>Assistant</h1>
      <Show loaded={status}>
        {(today) =>
          !today.available ? (
            <p class="panel muted">{today.reason}</p>
          ) : (
            <>
              <p class="muted">
                Answers questions about using this service from its documentation, citing the pages it used. It is sent your question and the documentation
                excerpts only, nothing of your organization. Left today: {today.remaining.requests} of {today.limits.requests} questions and{" "}
                {today.remaining.tokens.toLocaleString()} of {today.limits.tokens.toLocaleString()} tokens; the limits reset <Time at={today.resetsAt} /> (at
                midnight UTC).
              </p>
              {today.localModel && (
                <p class="panel warn" data-testid="local-model">
                  A local fake model answers here (<code>npm start</code> runs it in place of the model provider): its answers are canned, not a model's, though
                  the documentation excerpts and the sources it cites are real.
                </p>
              )}
              <form
                class="panel"
                aria-label="Ask the assistant"
                onSubmit={(event) => {
                  event.preventDefault();
                  void ask();
                }}
              >
                <label>
                  Your question
                  <textarea name="question" required maxLength={2000} rows={3} value={question} onInput={(event) => setQuestion(event.currentTarget.value)} />
                </label>
                <button type="submit" disabled={pending || question.trim() === ""}>
                  Ask
                </button>
              </form>
            </>
          )
        }
      </Show>
      {failure && <FailureNote failure={failure} />}
      {pending && !answer && (
        <p role="status" class="muted">
          Looking through the documentation...
        </p>
      )}
      {answer && (
        <section aria-label="Answer" aria-busy={!answer.done}>
          <h2>Answer</h2>
          <p style={{ whiteSpace: "pre-wrap" }}>{answer.text}</p>
          {answer.sources.length > 0 && (
            <>
              <h3>Sources</h3>
              <ol>
                {answer.sources.map((source) => (
                  <li key={source.url}>
                    <a href={source.url} target="_blank" rel="noopener noreferrer">
                      {source.title}
                    </a>
                  </li>
                ))}
              </ol>
            </>
          )}
        </section>
      )}
    </>
  );
}
