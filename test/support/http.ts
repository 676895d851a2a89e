// Requests to the Worker under test, exactly as a client would send them: the Worker's own fetch
// handler, called in the test's context. Not through the pool's SELF binding: there each request
// imports the entry again through the runner and wraps the entry's class once more, so each request of
// an isolate costs more than the one before (a file's hundredth request tens of milliseconds).
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
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
  // A body of known length arrives with its length declared, as it does over HTTP (routes read it before the body).
  const length =
    typeof body === "string" ? new TextEncoder().encode(body).byteLength : body instanceof ArrayBuffer || ArrayBuffer.isView(body) ? body.byteLength : null;
  if (length !== null && !headers.has("content-length")) headers.set("content-length", String(length));
  return new Request(BASE + path, { ...init, headers, body }) as Request<unknown, IncomingRequestCfProperties>;
}

/**
 * The Worker's answer to one request under `environment`. A redirect is answered as it is (no client
 * here follows it). The request's work ends only once its body is read (worker/http/services.ts), and
 * what it left to waitUntil is done before the answer returns: a test then sees everything it caused.
 */
async function send(environment: object, path: string, init: CallInit): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch(request(path, init), environment as typeof env, ctx);
  const body = response.body ? await response.arrayBuffer() : null;
  await waitOnExecutionContext(ctx);
  return new Response(body, response);
}

export function call(path: string, init: CallInit = {}): Promise<Response> {
  return send(env, path, init);
}

/** One environment object per `overrides` object: the Worker parses a configuration once per environment object, as once per isolate in production. */
const environments = new WeakMap<object, object>();

/** The same Worker, given a configuration that differs from the suite's in `overrides`. */
export function callWith(overrides: Record<string, unknown>, path: string, init: CallInit = {}): Promise<Response> {
  let environment = environments.get(overrides);
  if (!environment) environments.set(overrides, (environment = { ...env, ...overrides }));
  return send(environment, path, init);
}

/** A database URL nothing listens on. */
export const UNREACHABLE_DATABASE = { SVC_DATABASE_URL: "postgres://svc_app:x@127.0.0.1:1/svc" };

/** Every Set-Cookie line of a response. */
export const setCookies = (response: Response): string[] => response.headers.getAll("set-cookie");
