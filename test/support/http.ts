// Requests to the Worker under test, exactly as a client would send them.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import worker from "../../worker/index";

export const BASE = "http://control-plane.test";

type CallInit = RequestInit & { json?: unknown; token?: string };

function request(path: string, init: CallInit): Request<unknown, IncomingRequestCfProperties> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("authorization", `Bearer ${init.token}`);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(init.json);
  }
  return new Request(BASE + path, { ...init, headers, body }) as Request<unknown, IncomingRequestCfProperties>;
}

export function call(path: string, init: CallInit = {}): Promise<Response> {
  return exports.default.fetch(request(path, init));
}

/** The same Worker, given a configuration that differs from the suite's in `overrides`. */
export async function callWith(overrides: Record<string, unknown>, path: string, init: CallInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch(request(path, init), { ...env, ...overrides }, ctx);
  // The request's work ends only once its body is read (worker/http/services.ts): read it first.
  const body = response.body ? await response.arrayBuffer() : null;
  await waitOnExecutionContext(ctx);
  return new Response(body, response);
}

/** A database URL nothing listens on. */
export const UNREACHABLE_DATABASE = { SVC_DATABASE_URL: "postgres://svc_app:x@127.0.0.1:1/svc" };

/** Every Set-Cookie line of a response. */
export const setCookies = (response: Response): string[] => response.headers.getAll("set-cookie");
