// The chat-completions API as the fake speaks it: `POST /v1/chat/completions`, the key as a bearer;
// a streamed answer reports usage (a last chunk with no choices) only with `stream_options.include_usage`.
import { json } from "../codehost/http";
import { eventStream, type ProviderApi } from "./api";

export const chatApi: ProviderApi = {
  path: /^\/v1\/chat\/completions$/,
  keyOf: (request) => request.bearer,
  error: (status, message) =>
    json(status, {
      error: { message, type: status === 401 ? "invalid_request_error" : "api_error", param: null, code: status === 401 ? "invalid_api_key" : null },
    }),
  answer(body, shape) {
    const base = { id: `chatcmpl-${shape.id}`, created: Math.floor(Date.now() / 1000), model: body.model };
    const usage = { prompt_tokens: shape.inputTokens, completion_tokens: shape.words.length, total_tokens: shape.inputTokens + shape.words.length };
    if (body.stream !== true) {
      return json(200, {
        ...base,
        object: "chat.completion",
        choices: [{ index: 0, message: { role: "assistant", content: shape.words.join(" "), refusal: null }, logprobs: null, finish_reason: "stop" }],
        usage,
      });
    }
    const chunk = (choices: unknown[], more: Record<string, unknown> = {}) => ({ data: { ...base, object: "chat.completion.chunk", choices, ...more } });
    const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    return {
      status: 200,
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
      stream: eventStream(
        [
          chunk([{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }]),
          ...shape.words.map((word, i) => chunk([{ index: 0, delta: { content: i === 0 ? word : ` ${word}` }, logprobs: null, finish_reason: null }])),
          chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }]),
          ...(includeUsage ? [chunk([], { usage })] : []),
          { data: "[DONE]" },
        ],
        shape.delayMs,
      ),
    };
  },
};
