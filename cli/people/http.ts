// The people's commands talk to the control plane over HTTP only: JSON in and out, the stored CLI
// token as the bearer. A refusal becomes a Stop carrying the service's sentence.
import { UNREACHABLE_EXIT } from "../command";
import { refusalOf, Stop } from "./refusal";

export interface Answer {
  status: number;
  code: string | null;
  body: unknown;
}

/**
 * How long a command waits for the control plane's whole answer. The service answers within its own
 * deadlines (a database that does not answer is a 503 well before this), so a connection still silent
 * after it is a control plane in trouble, told like one that cannot be reached, not waited on forever.
 */
const ANSWER_DEADLINE_MS = 30_000;

const unreachable = (url: string, error: unknown, deadlineMs: number) =>
  new Stop(
    (error as Error).name === "TimeoutError"
      ? `The control plane at ${url} did not answer within ${deadlineMs / 1000} s; try again, or check that it runs.`
      : `Could not reach the control plane at ${url} (${(error as Error).cause ?? (error as Error).message}); is it running? Set SVC_CONTROL_PLANE or --url.`,
    UNREACHABLE_EXIT,
  );

export async function send(
  url: string,
  method: string,
  path: string,
  init: { token?: string; json?: unknown; form?: Record<string, string>; deadlineMs?: number } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body: string | undefined;
  if (init.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(init.form).toString();
  } else if (init.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(init.json);
  }
  const deadlineMs = init.deadlineMs ?? ANSWER_DEADLINE_MS;
  let response: Response;
  let text: string;
  try {
    // The deadline covers the body too: an answer whose headers came and whose body never ends is no answer.
    response = await fetch(new URL(path, `${url.replace(/\/+$/, "")}/`), { method, headers, body, signal: AbortSignal.timeout(deadlineMs) });
    text = await response.text();
  } catch (error) {
    throw unreachable(url, error, deadlineMs);
  }
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { error: `The control plane answered ${response.status} with a body that is not JSON.` };
  }
  return { status: response.status, code: response.headers.get("x-svc-error-code"), body: parsed };
}

/** The answer's body when its status is `expected`; the refusal as a Stop otherwise. */
export async function expectOk<T>(url: string, method: string, path: string, expected: number, init: Parameters<typeof send>[3] = {}): Promise<T> {
  const answer = await send(url, method, path, init);
  if (answer.status === expected) return answer.body as T;
  throw refusalOf(url, answer.status, answer.code, answer.body);
}
