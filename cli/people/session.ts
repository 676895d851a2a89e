// The people's commands share this: the options parsed, the control plane, the stored token (a
// command needing one says to log in when there is none), and how an answer is printed.
import type { CommandEnv } from "../command";
import { readToken } from "./credentials";
import { parseOptions, type PeopleOptions } from "./options";
import { printable } from "./printable";
import { exitStatusFor, Stop } from "./refusal";

export interface Invocation extends PeopleOptions {
  env: CommandEnv;
}

export const invocation = (args: string[], env: CommandEnv): Invocation => ({ ...parseOptions(args, env), env });

export function storedToken(run: Invocation): string {
  const stored = readToken(run.env, run.url);
  if (!stored) throw new Stop(`Not signed in to ${run.url}; run \`svc login\` first.`, exitStatusFor("unauthenticated"));
  return stored.token;
}

/** `--json`: the service's answer as it came; otherwise the sentence for a person. */
export function print(run: Invocation, answer: unknown, sentence: () => string): number {
  process.stdout.write(run.json ? `${JSON.stringify(answer, null, 2)}\n` : `${printable(sentence())}\n`);
  return 0;
}
