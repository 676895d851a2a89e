// Prices the model proxy charges against; a model with no price is refused at request time.
import { readEntries, type EnvReader } from "./readers";
import type { ModelPrice } from "./types";

/** US dollars per million input/output tokens, as published by the providers. */
const BUILT_IN_PRICES: ReadonlyArray<[string, ModelPrice]> = [
  ["claude-opus-4-1", { input: 15, output: 75 }],
  ["claude-sonnet-4-5", { input: 3, output: 15 }],
  ["claude-haiku-4-5", { input: 1, output: 5 }],
  ["gpt-4o", { input: 2.5, output: 10 }],
  ["gpt-4o-mini", { input: 0.15, output: 0.6 }],
];

const PRICE_PAIR = /^([0-9]+(?:\.[0-9]+)?)\/([0-9]+(?:\.[0-9]+)?)$/;

export function readModelPrices(r: EnvReader): ReadonlyMap<string, ModelPrice> {
  const prices = new Map(BUILT_IN_PRICES);
  for (const [model, text] of readEntries(r, "SVC_MODEL_PRICES", "<model>=<input>/<output>") ?? []) {
    const match = PRICE_PAIR.exec(text);
    if (match?.[1] === undefined || match[2] === undefined) {
      r.refuse(
        "SVC_MODEL_PRICES",
        `SVC_MODEL_PRICES gives "${model}" a price that is not <input>/<output> in non-negative decimal dollars per million tokens.`,
      );
      continue;
    }
    prices.set(model, { input: Number(match[1]), output: Number(match[2]) });
  }
  return prices;
}
