// Where the model proxy forwards each provider's requests: the public APIs unless set (tests and
// self-hosting point them elsewhere, like SVC_BILLING_API_BASE).
import { readHttpUrl, type EnvReader } from "./readers";
import type { ModelProvidersConfig } from "./types";

export function readModelProviders(r: EnvReader): ModelProvidersConfig {
  return {
    messagesApiBase: readHttpUrl(r, "SVC_MESSAGES_PROVIDER_API_BASE") ?? "https://api.anthropic.com",
    chatApiBase: readHttpUrl(r, "SVC_CHAT_PROVIDER_API_BASE") ?? "https://api.openai.com",
  };
}
