// Requests to the Worker under test, exactly as a client would send them.
import { exports } from "cloudflare:workers";

export const BASE = "http://control-plane.test";

export function call(path: string, init: RequestInit & { json?: unknown; token?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("authorization", `Bearer ${init.token}`);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(init.json);
  }
  return exports.default.fetch(new Request(BASE + path, { ...init, headers, body }));
}
