// The console's RPC as the console calls it: the unmodified @trpc/client, batching on (or off, or
// streamed), carrying the session cookie and (for mutations) the CSRF header; and raw requests for the
// wire shapes.
import { createTRPCClient, httpBatchLink, httpBatchStreamLink, httpLink } from "@trpc/client";
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../worker/index";
import type { AppRouter } from "../../worker/rpc/router";
import { BASE, call } from "./http";
import { browser } from "./sessions";

interface ClientOptions {
  batch?: boolean;
  /** httpBatchStreamLink: results as JSON lines, each as its procedure finishes; "accept": asked for with `accept: application/jsonl` (the link's streamHeader option). */
  stream?: boolean | "accept";
  csrf?: string | null;
  /** Settings over the suite's. */
  env?: Record<string, string>;
}

export async function rpcClient(sessionToken: string | null, options: ClientOptions = {}) {
  const csrf = options.csrf === undefined && sessionToken ? await browser(sessionToken).csrf() : options.csrf;
  const link = options.stream ? httpBatchStreamLink : options.batch === false ? httpLink : httpBatchLink;
  return createTRPCClient<AppRouter>({
    links: [
      link({
        url: `${BASE}/rpc`,
        ...(options.stream === "accept" ? { streamHeader: "accept" as const } : {}),
        fetch: async (url, init) => {
          const request = new Request(url, init as RequestInit) as Request<unknown, IncomingRequestCfProperties>;
          // The Worker itself (test/support/http.ts), its response returned as soon as it starts: a streamed batch arrives as it is written.
          return worker.fetch(request, options.env ? { ...env, ...options.env } : env, createExecutionContext());
        },
        headers: () => ({
          ...(sessionToken ? { cookie: `svc_session=${sessionToken}` } : {}),
          ...(csrf ? { "x-svc-csrf": csrf } : {}),
        }),
      }),
    ],
  });
}

/** A raw query: GET /rpc/<name>?input=<json>. */
export const rpcGet = (sessionToken: string | null, name: string, input?: unknown) =>
  call(`/rpc/${name}${input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`}`, {
    headers: sessionToken ? { cookie: `svc_session=${sessionToken}` } : {},
  });

/** A raw mutation: POST /rpc/<name> with a JSON body. */
export const rpcPost = (sessionToken: string | null, name: string, input: unknown, csrf?: string) =>
  call(`/rpc/${name}`, {
    method: "POST",
    json: input,
    headers: { ...(sessionToken ? { cookie: `svc_session=${sessionToken}` } : {}), ...(csrf ? { "x-svc-csrf": csrf } : {}) },
  });
