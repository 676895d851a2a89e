// /rpc/*: the console's procedures served by tRPC's fetch adapter inside the app, after the shared
// plumbing (request id, config, per-request pool). Queries are GET with `?input=`, mutations POST
// with a JSON body; batches (`?batch=1`) and batches streamed as JSON lines (`trpc-accept` or
// `accept: application/jsonl`) are the adapter's own.
// The router (every procedure and its schemas), the adapter and its error wording are loaded on the first /rpc
// request, not at isolate start (bench/startup.ts).
import type { Hono } from "hono";
import type { AppContext, AppEnv } from "../http/context";
import { decodeUtf8, readBytes } from "../http/input";
import { Refusal } from "../http/refusal";
import { rpcContext } from "./context";
import { planGate } from "../http/plan-gate";
import { readOperatorCookie } from "../operators/sessions";
import { authenticateSession } from "../sessions/middleware";

export const RPC_PREFIX = "/rpc";
/** Calls in one batch: each opens a transaction; the console sends one call a request. */
export const MAX_BATCH_CALLS = 100;

export function registerRpc(app: Hono<AppEnv>): void {
  // Each procedure declares its own side (meta.gate), checked where it runs.
  app.all(`${RPC_PREFIX}/*`, planGate("reachable"), async (c) => {
    const [{ appRouter }, { fetchRequestHandler }, { asTrpcError, errorCodeHeader }] = await Promise.all([
      import("./router"),
      import("@trpc/server/adapters/fetch"),
      import("../trpc/errors"),
    ]);
    const { request, refused } = await forAdapter(c);
    const answered = refused && (await callerBefore(c, refused));
    return fetchRequestHandler({
      endpoint: RPC_PREFIX,
      req: request,
      router: appRouter,
      maxBatchSize: MAX_BATCH_CALLS,
      responseMeta: errorCodeHeader,
      // A refused body answers every call of the request (each with its path) before any procedure runs.
      createContext: () => {
        if (answered) throw asTrpcError(answered);
        return rpcContext(c);
      },
    });
  });
}

/**
 * Who before what: a body refused before any procedure runs (so before a procedure's own session
 * check) is answered 401 to a request with no live session, and 403 to a session's change without its
 * CSRF header; an operator's session cookie is checked by the admin.* procedures (worker/operators).
 */
async function callerBefore(c: AppContext, refused: Refusal): Promise<Refusal> {
  if (readOperatorCookie(c)) return refused;
  return authenticateSession(c).then(
    () => refused,
    (failure: unknown) => {
      if (failure instanceof Refusal) return failure;
      throw failure;
    },
  );
}

/**
 * The request as the adapter reads it. A mutation's body is read here, whole and bounded like every
 * body (413 before it is read whole), before any procedure opens a transaction; it must be JSON: the
 * adapter would also hand form and binary bodies to procedures, unread by this limit (415).
 */
async function forAdapter(c: AppContext): Promise<{ request: Request; refused?: Refusal }> {
  const raw = c.req.raw;
  if (raw.method !== "POST") return { request: raw };
  // Typed JSON whatever was sent: the adapter then reaches createContext, which answers a refused body.
  const headers = new Headers(raw.headers);
  headers.set("content-type", "application/json");
  const bodiless = new Request(raw.url, { method: raw.method, headers, signal: raw.signal });
  const media = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (media !== "application/json") {
    return { request: bodiless, refused: new Refusal("unsupported_media_type", "Mutations take a JSON body (content-type application/json).") };
  }
  try {
    const text = decodeUtf8(await readBytes(c));
    if (text === null) return { request: bodiless, refused: new Refusal("invalid_json", "The body is not UTF-8 text, so it is not JSON.") };
    return { request: new Request(bodiless, { body: text }) };
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return { request: bodiless, refused: error };
  }
}
