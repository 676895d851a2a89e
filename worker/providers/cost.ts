// What a request costs in micro-dollars: a price in US dollars per million tokens is micro-dollars
// per token. Rounded up, so a budget is never charged less than the price says.
import type { ModelPrice } from "../config/types";
import type { Usage } from "./usage";

export const costMicros = (price: ModelPrice, usage: Usage): number => Math.ceil(usage.inputTokens * price.input + usage.outputTokens * price.output);

/**
 * The most a request can cost: its output bound at the output price, and as many input tokens as the
 * request has bytes (a token of text is at least one byte, so this is an upper bound for text).
 */
export const worstCaseMicros = (price: ModelPrice, bodyBytes: number, maxOutputTokens: number): number =>
  costMicros(price, { inputTokens: bodyBytes, outputTokens: maxOutputTokens });
