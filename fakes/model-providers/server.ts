// A fake of one model provider (the messages API or the chat-completions API), reached by the proxy
// through SVC_MESSAGES_PROVIDER_API_BASE / SVC_CHAT_PROVIDER_API_BASE. It answers plain and streamed
// requests with usage, as the real one does (the website assistant's questions with the words of the
// first excerpt they were sent); records every request by the key it came with (never more than the
// model and the output bound), and refuses a key on demand. A model whose name contains `slow` streams
// 40 parts 25 ms apart; one whose name contains `fetching` reports a million more input tokens than it
// was sent (a document it fetched itself). Ids carry a per-start prefix.
// Control routes: GET /_fake/requests?key=, POST /_fake/refusals { key, status, message }.
import { createServer } from "node:http";
import { fields, json, serve, type Route } from "../codehost/http";
import type { AnswerShape, ProviderApi } from "./api";
import { chatApi } from "./chat";
import { messagesApi } from "./messages";

export type ProviderKind = "messages" | "chat";

export interface RecordedCall {
  key: string | null;
  model: unknown;
  stream: boolean;
  maxTokens: unknown;
  /** Whether a streamed request asked for usage (`stream_options.include_usage`). */
  includeUsage: boolean;
  at: string;
}

const APIS: Record<ProviderKind, ProviderApi> = { messages: messagesApi, chat: chatApi };

/**
 * What the website assistant's instructions number first (`[1] <title> (<path>)` and its text), so a
 * local answer reads like one that cites its source.
 */
const firstExcerpt = (system: unknown) => /^\[1\] .*\n(.+)$/m.exec(typeof system === "string" ? system : "")?.[1]?.split(" ") ?? null;

/**
 * Output the fake produces: at most 16 words (40 for a slow model), never more than the request
 * allows: `word0 word1 ...`, or for the website assistant "According to [1]: " and the first excerpt's words.
 */
function shapeOf(body: Record<string, unknown>, id: string, limit: number): AnswerShape {
  const slow = String(body.model).includes("slow");
  const fetched = String(body.model).includes("fetching") ? 1_000_000 : 0;
  const count = Math.max(1, Math.min(limit, slow ? 40 : 16));
  const excerpt = firstExcerpt(body.system);
  return {
    id,
    inputTokens: Math.ceil(JSON.stringify(body.messages ?? []).length / 4) + fetched,
    words: excerpt ? ["According", "to", "[1]:", ...excerpt].slice(0, count) : Array.from({ length: count }, (_, i) => `word${i}`),
    delayMs: slow ? 25 : 0,
  };
}

export async function startFakeModelProvider(kind: ProviderKind, options: { port?: number } = {}) {
  const api = APIS[kind];
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  let counter = 0;
  const calls: RecordedCall[] = [];
  const refusals = new Map<string, { status: number; message: string }>();

  const routes: Route[] = [
    [
      "POST",
      api.path,
      (request) => {
        const key = api.keyOf(request);
        const body = fields(request);
        calls.push({
          key,
          model: body.model,
          stream: body.stream === true,
          maxTokens: body.max_tokens ?? body.max_completion_tokens,
          includeUsage: (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true,
          at: new Date().toISOString(),
        });
        if (!key) return api.error(401, "No API key was sent.");
        const refusal = refusals.get(key);
        if (refusal) return api.error(refusal.status, refusal.message);
        if (typeof body.model !== "string") return api.error(400, "model: field required");
        const limit = Number(body.max_tokens ?? body.max_completion_tokens ?? 16);
        return api.answer(body, shapeOf(body, `${run}${(++counter).toString(36)}`, limit));
      },
    ],
    [
      "GET",
      /^\/_fake\/requests$/,
      (request) => {
        const key = request.url.searchParams.get("key");
        return json(200, key === null ? calls : calls.filter((call) => call.key === key));
      },
    ],
    [
      "POST",
      /^\/_fake\/refusals$/,
      (request) => {
        const body = fields(request) as { key?: string; status?: number; message?: string };
        if (typeof body.key !== "string") return json(400, { message: "Send { key, status?, message? }." });
        refusals.set(body.key, { status: Number(body.status ?? 429), message: body.message ?? "Refused by the fake." });
        return json(200, { refused: true });
      },
    ],
  ];

  const server = createServer((incoming, outgoing) => {
    serve(routes, incoming, outgoing, () => {}).catch(() => {
      if (!outgoing.headersSent) outgoing.writeHead(500).end();
      else outgoing.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
