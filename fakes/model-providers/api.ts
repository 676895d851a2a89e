// What each fake API has to say: where it listens, where its key travels, its error and answer shapes.
import type { FakeRequest, FakeResponse } from "../codehost/http";

/** What an API answers a request with: its tokens are the fake's own, derived from the request. */
export interface ProviderApi {
  path: RegExp;
  keyOf(request: FakeRequest): string | null;
  error(status: number, message: string): FakeResponse;
  answer(body: Record<string, unknown>, shape: AnswerShape): FakeResponse;
}

export interface AnswerShape {
  id: string;
  inputTokens: number;
  /** The words of the answer, one output token each. */
  words: string[];
  /** Pause between streamed parts. */
  delayMs: number;
}

/** Server-sent events, one part per event, with the shape's pause before each. */
export async function* eventStream(events: Array<{ event?: string; data: unknown }>, delayMs: number): AsyncIterable<string> {
  for (const { event, data } of events) {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    yield `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
  }
}
