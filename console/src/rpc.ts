// The console's one client of /rpc: @trpc/client typed by the Worker's own router, so a procedure
// change that breaks the console breaks the type check. Same origin: the session cookie goes along;
// mutations carry the session's CSRF token.
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "../../worker/rpc/router";
import { FieldError } from "./components/field-error";

/** What each procedure answers, as the Worker declares it. */
export type Outputs = inferRouterOutputs<AppRouter>;

let csrfToken = "";
export const setCsrfToken = (token: string) => {
  csrfToken = token;
};
/** For the session routes a page calls with its own fetch (the assistant's streamed answer). */
export const currentCsrfToken = () => csrfToken;

export const rpc = createTRPCClient<AppRouter>({
  links: [
    // One request per call (no batching), so a failure's response, and its request id, are its own.
    httpLink({ url: "/rpc", headers: ({ op }) => (op.type === "mutation" ? { "x-svc-csrf": csrfToken } : {}) }),
  ],
});

/** What a person is told about a failed call. */
export interface Failure {
  /** The server's sentence (a refusal) or a plain one for a failure we could not read. */
  message: string;
  /** Set for an unexpected failure (5xx, no answer): what to report. */
  requestId: string | null;
  /** The answer's HTTP status, when there was one (a page may offer a way out of a particular refusal). */
  status?: number;
  /** The form field the refusal is about (an input refusal's `data.field`, or the form's own check). */
  field?: string;
}

export function describeFailure(error: unknown): Failure {
  if (error instanceof TRPCClientError) {
    const status = (error.data as { httpStatus?: number } | undefined)?.httpStatus ?? null;
    // The answer's x-request-id header: what a person reports for a failure on our side.
    const requestId = (error.meta as { response?: Response } | undefined)?.response?.headers.get("x-request-id") ?? null;
    const field = (error.data as { field?: string } | undefined)?.field;
    if (status !== null && status < 500) return { message: error.message, requestId: null, status, ...(field ? { field } : {}) };
    return { message: status ? error.message : "The control plane did not answer; check your connection and try again.", requestId };
  }
  if (error instanceof AuthFailure) return error.failure;
  if (error instanceof FieldError) return { message: error.message, requestId: null, field: error.field };
  return { message: error instanceof Error ? error.message : String(error), requestId: null };
}

/** The session routes outside /rpc (/auth/*, /console/api/*): their JSON, or null when nobody is signed in (401). */
export async function authCall<T>(path: string, init: RequestInit = {}): Promise<T | null> {
  let response: Response;
  try {
    response = await fetch(path, { ...init, headers: { ...init.headers, ...(init.method && init.method !== "GET" ? { "x-svc-csrf": csrfToken } : {}) } });
  } catch {
    throw new AuthFailure({ message: "The control plane did not answer; check your connection and try again.", requestId: null });
  }
  const body = (await response.json().catch(() => null)) as (T & { error?: { message?: string } | string }) | null;
  if (response.ok || response.status === 401) return response.ok ? body : null;
  const error = body?.error;
  const message = (typeof error === "string" ? error : error?.message) ?? `The control plane answered ${response.status}.`;
  const requestId = response.status >= 500 ? response.headers.get("x-request-id") : null;
  throw new AuthFailure({ message, requestId });
}

export class AuthFailure extends Error {
  constructor(readonly failure: Failure) {
    super(failure.message);
  }
}
