// The console's RPC as the console calls it: the unmodified @trpc/client, batching on, carrying the
// session cookie and (for mutations) the CSRF header; and raw requests for the wire shapes.
import { createTRPCClient, httpBatchLink, httpLink } from "@trpc/client";
import { exports } from "cloudflare:workers";
import type { AppRouter } from "../../worker/rpc/router";
import { BASE, call } from "./http";
import { browser } from "./sessions";

export async function rpcClient(sessionToken: string | null, options: { batch?: boolean; csrf?: string | null } = {}) {
  const csrf = options.csrf === undefined && sessionToken ? await browser(sessionToken).csrf() : options.csrf;
  const link = options.batch === false ? httpLink : httpBatchLink;
  return createTRPCClient<AppRouter>({
    links: [
      link({
        url: `${BASE}/rpc`,
        fetch: (url, init) => exports.default.fetch(new Request(url, init as RequestInit)),
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
