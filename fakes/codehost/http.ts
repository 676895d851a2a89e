// The fake's tiny router: routes are (method, path pattern, handler); handlers get the parsed request
// and return a status with JSON, text or a redirect.
import type { IncomingMessage, ServerResponse } from "node:http";

export interface FakeRequest {
  method: string;
  url: URL;
  /** The pattern's capture groups, URL-decoded. */
  params: string[];
  headers: IncomingMessage["headers"];
  text: string;
  /** The bearer token of the Authorization header, if any. */
  bearer: string | null;
}

export interface FakeResponse {
  status: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
  /** A body written part by part as it is produced (server-sent events); stops if the client goes away. */
  stream?: AsyncIterable<string>;
  /** No answer at all: the connection stays open, silent, until the client gives up (a host that hangs). */
  silent?: true;
}

export type Route = [method: string, path: RegExp, handler: (request: FakeRequest) => FakeResponse | Promise<FakeResponse>];

export const json = (status: number, body: unknown): FakeResponse => ({ status, json: body });

/** A body as JSON or form fields (the OAuth token endpoint takes either); {} when empty or unreadable. */
export function fields(request: FakeRequest): Record<string, unknown> {
  if (request.text === "") return {};
  if (String(request.headers["content-type"]).startsWith("application/x-www-form-urlencoded")) {
    return Object.fromEntries(new URLSearchParams(request.text));
  }
  try {
    const parsed: unknown = JSON.parse(request.text);
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export async function serve(routes: Route[], incoming: IncomingMessage, outgoing: ServerResponse, onRequest: (url: URL) => void) {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  // The origin the client reached, so that absolute addresses the fake hands out (`Link`) lead back to it.
  const url = new URL(incoming.url ?? "/", `http://${incoming.headers.host ?? "fake"}`);
  onRequest(url);
  const method = incoming.method ?? "GET";
  let answer: FakeResponse = json(404, { message: "Not Found" });
  for (const [routeMethod, pattern, handler] of routes) {
    const match = routeMethod === method ? pattern.exec(url.pathname) : null;
    if (!match) continue;
    const authorization = incoming.headers.authorization ?? "";
    answer = await handler({
      method,
      url,
      params: match.slice(1).map((part) => decodeURIComponent(part ?? "")),
      headers: incoming.headers,
      text: Buffer.concat(chunks).toString("utf8"),
      bearer: /^(?:Bearer|token)\s+(\S+)$/i.exec(authorization)?.[1] ?? null,
    });
    break;
  }
  if (answer.silent) return;
  const headers = { ...answer.headers };
  if (answer.json !== undefined) headers["content-type"] = "application/json";
  outgoing.writeHead(answer.status, headers);
  if (answer.stream) {
    for await (const part of answer.stream) {
      if (outgoing.destroyed) break;
      outgoing.write(part);
    }
    outgoing.end();
    return;
  }
  outgoing.end(answer.json !== undefined ? JSON.stringify(answer.json) : (answer.text ?? ""));
}
