// The built-in price table (one data file with its sources and date), how a model name a client sends
// finds its price, and SVC_MODEL_PRICES laid over the table.
import { describe, expect, it } from "vitest";
import { BUILT_IN_PRICES, parsePriceTable, resolveModelPrice } from "../../worker/config/model-prices";
import PRICE_TABLE from "../../worker/config/model-prices.json";
import { parseConfig } from "../../worker/config/parse";
import { envWith, NOW } from "./fixtures";

describe("the built-in price table", () => {
  it("names its sources for both providers and its date, and prices current models of both", () => {
    expect(PRICE_TABLE.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(PRICE_TABLE.sources["messages-provider"]).toContain("https://");
    expect(PRICE_TABLE.sources["chat-provider"]).toContain("https://");
    expect(BUILT_IN_PRICES.get("claude-sonnet-4-5")).toEqual({ input: 3, output: 15 });
    expect(BUILT_IN_PRICES.get("claude-haiku-4-5")).toEqual({ input: 1, output: 5 });
    expect(BUILT_IN_PRICES.get("gpt-4o-mini")).toEqual({ input: 0.15, output: 0.6 });
    expect(BUILT_IN_PRICES.get("gpt-5")).toEqual({ input: 1.25, output: 10 });
    expect(BUILT_IN_PRICES.size).toBe(Object.keys(PRICE_TABLE.models["messages-provider"]).length + Object.keys(PRICE_TABLE.models["chat-provider"]).length);
  });

  it("refuses an entry that is not a price, and a model listed twice", () => {
    const table = (models: unknown) => ({ models });
    expect(() => parsePriceTable(table({ p: { m: { input: 1 } } }))).toThrow('"m"');
    expect(() => parsePriceTable(table({ p: { m: { input: -1, output: 2 } } }))).toThrow('"m"');
    expect(() => parsePriceTable(table({ p: { m: { input: "1", output: 2 } } }))).toThrow('"m"');
    expect(() => parsePriceTable(table({ p: { m: { input: 1, output: 2, cached: 0.1 } } }))).toThrow('"m"');
    expect(() => parsePriceTable(table({ p: { m: { input: 1, output: 2 } }, q: { m: { input: 1, output: 2 } } }))).toThrow("twice");
    expect(() => parsePriceTable({})).toThrow("models");
    expect(parsePriceTable(table({ p: { m: { input: 0, output: 2.5 } } }))).toEqual(new Map([["m", { input: 0, output: 2.5 }]]));
  });
});

describe("a model name's price", () => {
  it.each([
    ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5"],
    ["claude-sonnet-4-20250514", "claude-sonnet-4"],
    ["claude-sonnet-4-0", "claude-sonnet-4"],
    ["claude-opus-4-1-20250805", "claude-opus-4-1"],
    ["claude-3-7-sonnet-latest", "claude-3-7-sonnet"],
    ["gpt-4o-mini-2024-07-18", "gpt-4o-mini"],
    ["gpt-4o-2024-08-06", "gpt-4o"],
    ["gpt-4o-2024-05-13", "gpt-4o-2024-05-13"],
    ["gpt-5-mini-2025-08-07", "gpt-5-mini"],
    ["gpt-5.1-2025-11-13", "gpt-5.1"],
    ["gpt-4.1-nano-2025-04-14", "gpt-4.1-nano"],
    ["o3-mini-2025-01-31", "o3-mini"],
  ])("prices %s as %s, the longest priced name it starts with", (sent, model) => {
    expect(resolveModelPrice(BUILT_IN_PRICES, sent)).toEqual({ model, price: BUILT_IN_PRICES.get(model) });
  });

  it("leaves unpriced a name that is no priced name followed by '-'", () => {
    for (const sent of ["gpt-4oo", "claude-sonnet", "llama-3-70b", "xgpt-4o", "o3x"]) expect(resolveModelPrice(BUILT_IN_PRICES, sent)).toBeUndefined();
  });

  it("takes SVC_MODEL_PRICES over the table, for a model's snapshots too, and adds new names", () => {
    const parsed = parseConfig(envWith({ SVC_MODEL_PRICES: "gpt-4o-mini=2/20, gpt-4o-mini-2024-07-18=0.5/1, house-model=1/2" }), { now: NOW });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const prices = parsed.config.modelPrices;
    expect(resolveModelPrice(prices, "gpt-4o-mini-2025-01-01")?.price).toEqual({ input: 2, output: 20 });
    expect(resolveModelPrice(prices, "gpt-4o-mini-2024-07-18")?.price).toEqual({ input: 0.5, output: 1 });
    expect(resolveModelPrice(prices, "house-model-v2")).toEqual({ model: "house-model", price: { input: 1, output: 2 } });
    expect(resolveModelPrice(prices, "claude-sonnet-4-5-20250929")?.price).toEqual({ input: 3, output: 15 });
  });
});
