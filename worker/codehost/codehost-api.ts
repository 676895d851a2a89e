// Calls to the code host's REST API (SVC_CODEHOST_API_BASE), bounded in time. An answer of any status
// is returned to the caller to judge; only a host that cannot be reached throws.
import { assertNoTransaction } from "../../db/transaction";

export class CodehostUnreachable extends Error {
  override readonly name = "CodehostUnreachable";
}

export interface ApiAnswer {
  status: number;
  body: unknown;
  /** The `Link` header: where the next page of a list is (see paged.ts). */
  link: string | null;
}

const TIMEOUT_MS = 10_000;

export async function callCodehost(
  apiBase: string,
  method: "GET" | "POST" | "PUT" | "DELETE",
  path: string,
  bearer: string,
  json?: unknown,
): Promise<ApiAnswer> {
  assertNoTransaction("The code host's API");
  try {
    const response = await fetch(apiBase.replace(/\/+$/, "") + path, {
      method,
      headers: {
        accept: "application/vnd.github+json",
        authorization: `Bearer ${bearer}`,
        "user-agent": "svc-control-plane",
        "x-github-api-version": "2022-11-28",
        ...(json === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await response.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON: the status alone speaks.
    }
    return { status: response.status, body, link: response.headers.get("link") };
  } catch (error) {
    throw new CodehostUnreachable(error instanceof Error && error.name === "TimeoutError" ? "it did not answer in time" : "the connection failed");
  }
}

/** "HTTP 422: <the code host's own message>", for a sentence saying what was refused. */
export function describeAnswer(answer: ApiAnswer): string {
  const message = (answer.body as { message?: unknown } | null)?.message;
  return typeof message === "string" && message !== "" ? `HTTP ${answer.status}: ${message.slice(0, 200)}` : `HTTP ${answer.status}`;
}
