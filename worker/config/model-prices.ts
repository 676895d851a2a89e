// Prices the model proxy charges against; a model with no price is refused at request time. The
// built-in table is one data file, model-prices.json (with its sources and date); SVC_MODEL_PRICES
// adds names and replaces the table's. A dated snapshot is priced as its model (`resolveModelPrice`).
import PRICE_TABLE from "./model-prices.json";
import { readEntries, type EnvReader } from "./readers";
import type { ModelPrice } from "./types";

const isPrice = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0;

/**
 * The table's `models` (provider -> model -> `{ input, output }` US dollars per million tokens) as one
 * map; throws naming the first entry that is not a price, a provider that is not an object, or a model
 * listed twice, so a bad edit of the file fails at start-up and in the tests, never as a wrong charge.
 */
export function parsePriceTable(table: unknown): Map<string, ModelPrice> {
  const models = (table as { models?: unknown } | null)?.models;
  if (typeof models !== "object" || models === null) throw new Error("model-prices.json has no `models` object.");
  const prices = new Map<string, ModelPrice>();
  for (const [provider, listed] of Object.entries(models)) {
    if (typeof listed !== "object" || listed === null) throw new Error(`model-prices.json: \`models.${provider}\` is not an object of models.`);
    for (const [model, price] of Object.entries(listed as Record<string, unknown>)) {
      const { input, output } = (price ?? {}) as { input?: unknown; output?: unknown };
      if (!isPrice(input) || !isPrice(output) || Object.keys(price as object).length !== 2) {
        throw new Error(`model-prices.json: "${model}" (${provider}) is not { input, output } in non-negative US dollars per million tokens.`);
      }
      if (prices.has(model)) throw new Error(`model-prices.json lists "${model}" twice.`);
      prices.set(model, { input, output });
    }
  }
  return prices;
}

/** The built-in table (worker/config/model-prices.json). */
export const BUILT_IN_PRICES: ReadonlyMap<string, ModelPrice> = parsePriceTable(PRICE_TABLE);

/**
 * The price of `model`: its own, else that of the longest priced name it starts with followed by `-`,
 * so dated snapshots and aliases are priced as their model (`claude-sonnet-4-5-20250929` as
 * `claude-sonnet-4-5`, `gpt-4o-mini-2024-07-18` as `gpt-4o-mini`, not `gpt-4o`). Undefined: unpriced.
 */
export function resolveModelPrice(prices: ReadonlyMap<string, ModelPrice>, model: string): { model: string; price: ModelPrice } | undefined {
  const own = prices.get(model);
  if (own) return { model, price: own };
  let best: string | undefined;
  for (const name of prices.keys()) {
    if (model.startsWith(`${name}-`) && (best === undefined || name.length > best.length)) best = name;
  }
  return best === undefined ? undefined : { model: best, price: prices.get(best)! };
}

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
