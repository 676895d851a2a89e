// The model proxy's routes, one per provider, and the key and budget routes beside them.
import type { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { refusal, register, route, serverFailure, type Replied } from "../openapi/declaration";
import { DIALECTS } from "./dialects";
import { registerProviderKeys } from "./key-routes";
import { PROVIDERS } from "./names";
import { forward } from "./proxy";

export function registerProviders(app: Hono<AppEnv>): void {
  for (const provider of PROVIDERS) {
    const dialect = DIALECTS[provider];
    register(
      app,
      route({
        method: "post",
        path: `/byok/${provider}${dialect.path}`,
        operationId: provider === "messages-provider" ? "proxyMessages" : "proxyChatCompletions",
        summary: `Budgeted proxy to ${provider}: the provider's own request and answer (streamed as it arrives), sent with the organization's stored key`,
        description:
          // Not declared as bearer security: the messages API's clients send the key in x-api-key.
          `An engine or CLI token, in \`x-api-key\` or as the bearer. The body is the provider's own request (\`model\`${provider === "messages-provider" ? " and `max_tokens` required" : "; without `max_completion_tokens`/`max_tokens` the proxy bounds the output"}); ` +
          "the answer is the provider's, status included.",
        tag: "providers",
        gate: "gated",
        // The spec leaves the model proxy's shapes out of the published description.
        published: false,
        responses: {
          200: { description: "The provider's answer, passed through (server-sent events when `stream` is true)" },
          400: refusal(
            "Body not JSON, no model or output bound, input the provider would fetch or run itself (a document or image by address, a stored file, a server tool), or a model with no price (model_unpriced)",
          ),
          413: refusal("Body larger than 16 MiB (a valid token only: a stranger gets 401 before the body is read)"),
          401: refusal("No valid engine or CLI token"),
          402: refusal(
            "The request could cost more than is left of the month's budget, or no budget is set (budget_exceeded); or the plan lacks the hosted control plane",
          ),
          403: refusal("The organization is suspended"),
          412: refusal("No key stored for the provider (provider_key_missing)"),
          502: refusal("The provider could not be reached; nothing charged"),
          503: refusal("The stored key's sealing key is not configured"),
          500: serverFailure,
        },
        // The provider's own answer, passed through as it arrives: not a body this service declares.
        handler: async (c) => (await forward(c, dialect)) as Replied,
      }),
    );
  }
  registerProviderKeys(app);
}
