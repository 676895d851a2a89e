// `npm start`: the fakes of both model providers (fakes/model-providers), each unless the shell
// names that provider's real upstream, and a local sealing key for provider keys unless the shell
// configures sealing itself, so the proxy can be tried with curl or an SDK; and, while the messages
// fake stands in for the provider, a local key for the website assistant unless the shell sets one.
import { startFakeModelProvider, type ProviderKind } from "../fakes/model-providers/server";
import { persistentSecret } from "../cli/env-file";

const FAKES: Array<{ kind: ProviderKind; port: number; variable: "SVC_MESSAGES_PROVIDER_API_BASE" | "SVC_CHAT_PROVIDER_API_BASE" }> = [
  { kind: "messages", port: 54333, variable: "SVC_MESSAGES_PROVIDER_API_BASE" },
  { kind: "chat", port: 54334, variable: "SVC_CHAT_PROVIDER_API_BASE" },
];
const SEALING_VARIABLES = ["SVC_PROVIDER_KEY_SECRET", "SVC_PROVIDER_KEY_SECRETS", "SVC_PROVIDER_KEY_VERSION"];

export async function startLocalModelProviders() {
  const variables: Record<string, string> = {};
  const closers: Array<() => Promise<void>> = [];
  let banner = "";
  for (const { kind, port, variable } of FAKES) {
    if (process.env[variable]) continue;
    const fake = await startFakeModelProvider(kind, { port });
    variables[variable] = fake.url;
    closers.push(fake.close);
    banner += `fake ${kind.padEnd(9)}${fake.url}  (README: "Model provider keys and the proxy")\n`;
  }
  if (variables.SVC_MESSAGES_PROVIDER_API_BASE && process.env.SVC_CMS_MODEL_API_KEY === undefined) variables.SVC_CMS_MODEL_API_KEY = "sk-local-assistant";
  if (!SEALING_VARIABLES.some((name) => process.env[name] !== undefined)) variables.SVC_PROVIDER_KEY_SECRET = persistentSecret("provider-key-sealing.key");
  return { variables, banner, close: async () => void (await Promise.all(closers.map((close) => close()))) };
}
