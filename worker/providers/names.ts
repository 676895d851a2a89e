// The two model providers, named by the spec's path words: `messages-provider` (the messages API)
// and `chat-provider` (the chat-completions API).
import * as z from "zod";
import { PROVIDERS } from "../../db/enums";

export { PROVIDERS, type Provider } from "../../db/enums";

export const ProviderName = z.enum(PROVIDERS).describe("The model provider: `messages-provider` or `chat-provider`.");
