// What an answer says it used, read from a whole JSON answer or from server-sent events as they pass.
import { within } from "../../db/deadline";
export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

const count = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0);

/** The messages API: input (cache writes and reads counted at the input price) and output. */
export function messagesUsage(usage: unknown): Usage | null {
  if (typeof usage !== "object" || usage === null) return null;
  const u = usage as Record<string, unknown>;
  return {
    inputTokens: count(u.input_tokens) + count(u.cache_creation_input_tokens) + count(u.cache_read_input_tokens),
    outputTokens: count(u.output_tokens),
  };
}

/** The chat-completions API. */
export function chatUsage(usage: unknown): Usage | null {
  if (typeof usage !== "object" || usage === null) return null;
  const u = usage as Record<string, unknown>;
  return { inputTokens: count(u.prompt_tokens), outputTokens: count(u.completion_tokens) };
}

/** Follows a stream's events; `final` is null until the event that completes the usage has passed. */
export interface StreamUsage {
  event(data: Record<string, unknown>): void;
  final(): Usage | null;
}

/** `message_start` carries the input (and a first output count); `message_delta` the cumulative output. */
export function messagesStreamUsage(): StreamUsage {
  let usage: Usage | null = null;
  let complete = false;
  return {
    event(data) {
      if (data.type === "message_start") {
        usage = messagesUsage((data.message as Record<string, unknown> | undefined)?.usage);
      } else if (data.type === "message_delta" && usage) {
        const delta = data.usage as Record<string, unknown> | undefined;
        if (delta?.output_tokens !== undefined) usage.outputTokens = count(delta.output_tokens);
        // Newer answers repeat the input in the delta; it wins when present.
        if (delta?.input_tokens !== undefined) usage.inputTokens = messagesUsage(delta)!.inputTokens;
        complete = true;
      }
    },
    final: () => (complete ? usage : null),
  };
}

/** With `stream_options.include_usage`, the last chunk (empty `choices`) carries the usage. */
export function chatStreamUsage(): StreamUsage {
  let usage: Usage | null = null;
  return {
    event(data) {
      if (data.usage) usage = chatUsage(data.usage);
    },
    final: () => usage,
  };
}

/**
 * Splits server-sent events out of arbitrary byte chunks and hands each `data:` payload that is a JSON
 * object to `onData`. Nothing is kept but the unfinished line.
 */
export function sseReader(onData: (data: Record<string, unknown>) => void): (chunk: Uint8Array) => void {
  const decoder = new TextDecoder();
  let pending = "";
  let data: string[] = [];
  const dispatch = () => {
    const text = data.join("\n");
    data = [];
    if (text === "" || text === "[DONE]") return;
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === "object" && parsed !== null) onData(parsed as Record<string, unknown>);
    } catch {
      // Not JSON: nothing to read usage from.
    }
  };
  return (chunk) => {
    pending += decoder.decode(chunk, { stream: true });
    const lines = pending.split(/\r\n|\r|\n/);
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (line === "") dispatch();
      else if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
    }
  };
}

/**
 * How long a model provider may take: to answer a call's head (a long generation that is not streamed
 * answers only when it is done), and between two chunks of a streamed answer (providers send a keep-alive
 * event well within this). Past either, the call is over: nothing waits on a provider forever.
 */
export const PROVIDER_DEADLINES = { headMs: 120_000, idleMs: 60_000 } as const;

/** A call to a model provider whose head must come within PROVIDER_DEADLINES.headMs; it rejects otherwise, as an unreachable host does. */
export async function callProvider(url: string, init: RequestInit, headMs: number = PROVIDER_DEADLINES.headMs): Promise<Response> {
  const aborting = new AbortController();
  const timer = setTimeout(() => aborting.abort(new Error(`The model provider did not answer within ${headMs} ms.`)), headMs);
  try {
    return await fetch(url, { ...init, signal: aborting.signal });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads an upstream stream to its end, handing each chunk to `onChunk` (awaited) as it arrives, and
 * answers what broke it off (`{ error }`, a silence longer than PROVIDER_DEADLINES.idleMs among them),
 * or null when it ended. Read to the end whatever the client does, so that what a provider produced is charged.
 */
export async function readToEnd(
  upstream: ReadableStream<Uint8Array>,
  onChunk: (chunk: Uint8Array) => Promise<void> | void,
  idleMs: number = PROVIDER_DEADLINES.idleMs,
): Promise<{ error: unknown } | null> {
  const reader = upstream.getReader();
  try {
    for (;;) {
      const { done, value } = await within(reader.read(), idleMs, "The model provider's stream");
      if (done) return null;
      await onChunk(value);
    }
  } catch (error) {
    void reader.cancel().catch(() => {});
    return { error };
  }
}
