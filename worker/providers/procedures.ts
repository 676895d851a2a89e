// providers.prices (tokens.manage): which API each model provider speaks and the models the proxy
// prices, with what it charges for them. The keys and budgets are the REST routes' (routes.ts), whose
// shapes the spec fixes; the price list is the console's only, so it is a procedure of its own.
import PRICE_TABLE from "../config/model-prices.json";
import { PROVIDERS, type Provider } from "./names";
import { inOrganization, router } from "../trpc/builder";

/** What each provider's path word stands for: the API it speaks (whoever serves it), and the path the proxy serves it at. */
export const PROVIDER_APIS: Record<Provider, { api: string; path: string }> = {
  "messages-provider": { api: "Anthropic's Messages API", path: "/byok/messages-provider/v1/messages" },
  "chat-provider": { api: "OpenAI's Chat Completions API", path: "/byok/chat-provider/v1/chat/completions" },
};

const table = PRICE_TABLE as { asOf: string; sources: Record<Provider, string>; models: Record<Provider, Record<string, unknown>> };

const prices = inOrganization
  .meta({
    permission: "tokens.manage",
    gate: "gated",
    summary: "The model providers' APIs and the models the proxy prices (US dollars per million tokens, SVC_MODEL_PRICES applied)",
  })
  .query(({ ctx }) => {
    const { modelPrices } = ctx.config;
    const listed = new Set<string>();
    const providers = PROVIDERS.map((provider) => ({
      provider,
      ...PROVIDER_APIS[provider],
      // The table cites the pricing page first, then where else it is published.
      source: table.sources[provider].split(" ")[0]!,
      // The table's models at the price charged now: SVC_MODEL_PRICES replaces the table's.
      models: Object.keys(table.models[provider]).map((model) => {
        listed.add(model);
        return { model, ...modelPrices.get(model)! };
      }),
    }));
    return {
      asOf: table.asOf,
      providers,
      /** Names SVC_MODEL_PRICES adds: the proxy prices them on either provider. */
      added: [...modelPrices].filter(([model]) => !listed.has(model)).map(([model, price]) => ({ model, ...price })),
    };
  });

export const providersRouter = router({ prices });
