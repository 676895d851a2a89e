// The two model providers, named by the spec's path words: `messages-provider` (the messages API)
// and `chat-provider` (the chat-completions API).
import * as z from "zod";

export const PROVIDERS = ["messages-provider", "chat-provider"] as const;

export type Provider = (typeof PROVIDERS)[number];

export const ProviderName = z.enum(PROVIDERS).describe("The model provider: `messages-provider` or `chat-provider`.");
