// The messages API as the fake speaks it: `POST /v1/messages`, the key in `x-api-key` (or a bearer),
// usage split across `message_start` (input) and `message_delta` (cumulative output) when streamed.
import { json } from "../codehost/http";
import { eventStream, type ProviderApi } from "./api";

export const messagesApi: ProviderApi = {
  path: /^\/v1\/messages$/,
  keyOf: (request) => (typeof request.headers["x-api-key"] === "string" ? request.headers["x-api-key"] : request.bearer),
  error: (status, message) => json(status, { type: "error", error: { type: status === 401 ? "authentication_error" : "api_error", message } }),
  answer(body, shape) {
    const message = { id: `msg_${shape.id}`, type: "message", role: "assistant", model: body.model, stop_sequence: null };
    const usage = { input_tokens: shape.inputTokens, output_tokens: shape.words.length };
    if (body.stream !== true) {
      return json(200, { ...message, content: [{ type: "text", text: shape.words.join(" ") }], stop_reason: "end_turn", usage });
    }
    return {
      status: 200,
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
      stream: eventStream(
        [
          {
            event: "message_start",
            data: {
              type: "message_start",
              message: { ...message, content: [], stop_reason: null, usage: { input_tokens: shape.inputTokens, output_tokens: 1 } },
            },
          },
          { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
          { event: "ping", data: { type: "ping" } },
          ...shape.words.map((word, i) => ({
            event: "content_block_delta",
            data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: i === 0 ? word : ` ${word}` } },
          })),
          { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
          {
            event: "message_delta",
            data: { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: shape.words.length } },
          },
          { event: "message_stop", data: { type: "message_stop" } },
        ],
        shape.delayMs,
      ),
    };
  },
};
