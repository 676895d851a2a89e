// How each provider's API is spoken: where a request goes, how the key travels, what bounds its
// output (the worst case the proxy reserves), and where its answer reports usage.
import type { ModelProvidersConfig } from "../config/types";
import { Refusal } from "../http/refusal";
import type { Provider } from "./names";
import { chatStreamUsage, chatUsage, messagesStreamUsage, messagesUsage, type StreamUsage, type Usage } from "./usage";

/** What the proxy forwards, read from the caller's request. */
export interface ModelRequest {
  model: string;
  stream: boolean;
  /** The most output tokens the answer can hold (every choice counted). */
  maxOutputTokens: number;
  /** The JSON sent upstream (the caller's, with what the proxy needs added). */
  body: Record<string, unknown>;
}

export interface Dialect {
  provider: Provider;
  /** The upstream path, the same as the proxy's after `/byok/<provider>`. */
  path: string;
  apiBase(config: ModelProvidersConfig): string;
  read(body: Record<string, unknown>): ModelRequest;
  /** The upstream request's headers: the organization's key, and the caller's API headers that are safe to pass on. */
  headers(key: string, incoming: Headers): Headers;
  usage(answer: Record<string, unknown>): Usage | null;
  streamUsage(): StreamUsage;
}

/** Output bound given to a chat request that names none, so its worst case is known. */
export const DEFAULT_CHAT_MAX_TOKENS = 4096;

const invalid = (message: string) => new Refusal("invalid_request", message);

function modelOf(body: Record<string, unknown>): string {
  if (typeof body.model !== "string" || body.model === "" || body.model.length > 200) throw invalid("The request is not valid: `model` must name the model (1 to 200 characters).");
  return body.model;
}

function positiveWhole(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return value;
  throw invalid(`The request is not valid: \`${name}\` must be a positive whole number.`);
}

const messages: Dialect = {
  provider: "messages-provider",
  path: "/v1/messages",
  apiBase: (config) => config.messagesApiBase,
  read(body) {
    const maxTokens = positiveWhole(body.max_tokens, "max_tokens");
    if (maxTokens === undefined) throw invalid("The request is not valid: `max_tokens` is required (it bounds what the request can cost).");
    return { model: modelOf(body), stream: body.stream === true, maxOutputTokens: maxTokens, body };
  },
  headers(key, incoming) {
    const headers = new Headers({ "content-type": "application/json", "x-api-key": key, "anthropic-version": incoming.get("anthropic-version") ?? "2023-06-01" });
    const beta = incoming.get("anthropic-beta");
    if (beta) headers.set("anthropic-beta", beta);
    return headers;
  },
  usage: (answer) => messagesUsage(answer.usage),
  streamUsage: messagesStreamUsage,
};

const chat: Dialect = {
  provider: "chat-provider",
  path: "/v1/chat/completions",
  apiBase: (config) => config.chatApiBase,
  read(input) {
    const body = { ...input };
    const named = positiveWhole(body.max_completion_tokens, "max_completion_tokens") ?? positiveWhole(body.max_tokens, "max_tokens");
    if (named === undefined) body.max_completion_tokens = DEFAULT_CHAT_MAX_TOKENS;
    const choices = positiveWhole(body.n, "n") ?? 1;
    const stream = body.stream === true;
    // A streamed answer reports usage only when asked to: the proxy always asks.
    if (stream) body.stream_options = { ...(typeof body.stream_options === "object" ? body.stream_options : {}), include_usage: true };
    return { model: modelOf(body), stream, maxOutputTokens: (named ?? DEFAULT_CHAT_MAX_TOKENS) * choices, body };
  },
  headers: (key) => new Headers({ "content-type": "application/json", authorization: `Bearer ${key}` }),
  usage: (answer) => chatUsage(answer.usage),
  streamUsage: chatStreamUsage,
};

export const DIALECTS: Record<Provider, Dialect> = { "messages-provider": messages, "chat-provider": chat };
