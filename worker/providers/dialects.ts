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
  if (typeof body.model !== "string" || body.model === "" || body.model.length > 200)
    throw invalid("The request is not valid: `model` must name the model (1 to 200 characters).");
  return body.model;
}

/**
 * Every object in `value`, depth first, with its path (`messages[0].content[1]`): how a request is
 * searched for what the provider would fetch itself. A tool call's `input` is the caller's own data,
 * passed back as it was, never fetched: it is not searched.
 */
function* objects(value: unknown, path = ""): Generator<[Record<string, unknown>, string]> {
  const stack: Array<[unknown, string]> = [[value, path]];
  while (stack.length) {
    const [item, at] = stack.pop()!;
    if (Array.isArray(item)) item.forEach((element, i) => stack.push([element, `${at}[${i}]`]));
    else if (typeof item === "object" && item !== null) {
      yield [item as Record<string, unknown>, at];
      for (const [key, element] of Object.entries(item)) if (key !== "input") stack.push([element, at ? `${at}.${key}` : key]);
    }
  }
}

/**
 * A request the provider would complete with input it fetches or runs itself (a document or image by
 * address, a stored file, a server-side tool) costs what the reservation cannot know in advance: the
 * proxy refuses it rather than guess (README: Security).
 */
const fetchedInput = (what: string, at: string) =>
  invalid(
    `The budgeted model proxy refuses ${what} (at \`${at}\`): the provider would fetch or run it itself, at a cost the budget cannot bound before the call. Send documents and images inline (base64 or text) and run tools yourself.`,
  );

const toolsOf = (body: Record<string, unknown>): Array<Record<string, unknown>> =>
  (Array.isArray(body.tools) ? body.tools : []).map((tool: unknown) => (typeof tool === "object" && tool !== null ? (tool as Record<string, unknown>) : {}));

/** Content the messages API reads from the request itself; a `url` or `file` source it fetches. */
const INLINE_SOURCES = new Set(["base64", "text", "content"]);
/** Tools the caller runs (its own, or the provider's client tools); any other type runs at the provider (web search, web fetch, code execution...). */
const CALLER_RUN_TOOL = /^(?:custom|bash_\d+|text_editor_\d+|computer_\d+|memory_\d+)$/;

function refuseFetchedMessagesInput(body: Record<string, unknown>): void {
  if (Array.isArray(body.mcp_servers) && body.mcp_servers.length > 0) throw fetchedInput("remote tool servers (`mcp_servers`)", "mcp_servers");
  toolsOf(body).forEach((tool, i) => {
    if (tool.type !== undefined && !CALLER_RUN_TOOL.test(String(tool.type))) throw fetchedInput(`the server tool "${String(tool.type)}"`, `tools[${i}]`);
  });
  for (const [item, at] of objects({ system: body.system, messages: body.messages })) {
    const sourceType = typeof item.source === "object" && item.source !== null ? String((item.source as Record<string, unknown>).type) : null;
    if (sourceType !== null && !INLINE_SOURCES.has(sourceType)) throw fetchedInput(`a document or image given by a "${sourceType}" source`, `${at}.source`);
    if ("file_id" in item) throw fetchedInput("a stored file (`file_id`)", at);
  }
}

/** Chat requests: an image is inline only as a `data:` address; a stored file, a search or a tool other than the caller's own is fetched or run by the provider. */
function refuseFetchedChatInput(body: Record<string, unknown>): void {
  if (body.web_search_options !== undefined) throw fetchedInput("web search (`web_search_options`)", "web_search_options");
  toolsOf(body).forEach((tool, i) => {
    if (tool.type !== "function" && tool.type !== "custom") throw fetchedInput(`the tool type "${String(tool.type)}"`, `tools[${i}]`);
  });
  for (const [item, at] of objects({ messages: body.messages })) {
    const image = item.image_url;
    const url = typeof image === "object" && image !== null ? (image as Record<string, unknown>).url : image;
    if (image !== undefined && !(typeof url === "string" && url.startsWith("data:")))
      throw fetchedInput("an image given by address (only `data:` addresses are inline)", `${at}.image_url`);
    if ("file_id" in item || "file_url" in item) throw fetchedInput("a stored or addressed file", at);
  }
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
    refuseFetchedMessagesInput(body);
    return { model: modelOf(body), stream: body.stream === true, maxOutputTokens: maxTokens, body };
  },
  headers(key, incoming) {
    const headers = new Headers({
      "content-type": "application/json",
      "x-api-key": key,
      "anthropic-version": incoming.get("anthropic-version") ?? "2023-06-01",
    });
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
    refuseFetchedChatInput(input);
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
