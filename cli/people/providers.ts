// svc providers list|set-key|revoke|budget over the CLI's /v1/providers routes
// (worker/providers/key-routes.ts). A key is read from standard input only: an argument would stay in
// the shell's history and the process list.
import { UsageError, type CommandEnv } from "../command";
import { expectOk } from "./http";
import { expectArguments } from "./options";
import { Stop, exitStatusFor } from "./refusal";
import { invocation, print, storedToken } from "./session";

interface Budget {
  monthlyCapUsd: number;
  month: string;
  spentUsd: number;
  reservedUsd: number;
}

interface ProviderState {
  provider: string;
  key: { lastFour: string; createdAt: string } | null;
  budget: Budget | null;
}

async function readKey(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write("Paste the key, then press Enter and Ctrl-D: ");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const key = Buffer.concat(chunks).toString("utf8").trim();
  if (!key)
    throw new Stop(
      "No key arrived on standard input; send it there (for example `svc providers set-key chat-provider < key.txt`).",
      exitStatusFor("invalid_request"),
    );
  return key;
}

const dollars = (usd: number) => `$${usd.toFixed(2)}`;

const budgetLine = (budget: Budget | null) =>
  budget
    ? `budget ${dollars(budget.monthlyCapUsd)} a month, ${budget.month}: ${dollars(budget.spentUsd)} spent, ${dollars(budget.reservedUsd)} reserved`
    : "no budget";

export async function providers(args: string[], env: CommandEnv): Promise<number> {
  const [action, ...rest] = args;
  const run = invocation(rest, env);
  switch (action) {
    case "list": {
      expectArguments(run, []);
      const list = await expectOk<{ providers: ProviderState[] }>(run.url, "GET", "/v1/providers", 200, { token: storedToken(run) });
      return print(run, list, () =>
        list.providers.map((state) => `${state.provider}: ${state.key ? `key ...${state.key.lastFour}` : "no key"}; ${budgetLine(state.budget)}`).join("\n"),
      );
    }
    case "set-key": {
      if (run.positional.length > 1) throw new UsageError("The key is never given as an argument; send it on standard input.");
      const [provider] = expectArguments(run, ["provider"]);
      const token = storedToken(run);
      const stored = await expectOk<{ provider: string; key: { lastFour: string }; replaced: boolean }>(
        run.url,
        "PUT",
        `/v1/providers/${encodeURIComponent(provider!)}`,
        200,
        { token, json: { key: await readKey() } },
      );
      return print(
        run,
        stored,
        () => `Stored the ${stored.provider} key ending ${stored.key.lastFour}${stored.replaced ? "; the previous one is revoked" : ""}.`,
      );
    }
    case "revoke": {
      const [provider] = expectArguments(run, ["provider"]);
      const revoked = await expectOk<{ provider: string }>(run.url, "DELETE", `/v1/providers/${encodeURIComponent(provider!)}`, 200, {
        token: storedToken(run),
      });
      return print(run, revoked, () => `Revoked the ${revoked.provider} key; the model proxy refuses its requests until another is stored.`);
    }
    case "budget": {
      const [provider, usd] = expectArguments(run, ["provider", "usd"]);
      const cap = Number(usd);
      if (!/^\d+(\.\d+)?$/.test(usd!) || !Number.isFinite(cap)) throw new UsageError(`${usd} is not an amount of US dollars such as 25 or 12.50.`);
      const set = await expectOk<{ provider: string; budget: Budget }>(run.url, "PUT", `/v1/providers/${encodeURIComponent(provider!)}/budget`, 200, {
        token: storedToken(run),
        json: { monthlyCapUsd: cap },
      });
      return print(run, set, () => `${set.provider}: ${budgetLine(set.budget)}.`);
    }
    default:
      throw new UsageError(action ? `Unknown providers command ${action}.` : "providers needs list, set-key, revoke or budget.");
  }
}
