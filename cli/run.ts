// Running one command line: the command named, its refusal or failure printed as a sentence, and the
// exit status. Shared by the repository's `svc` (cli/svc.ts) and the installed one (cli/installed.ts).
import { type Command, type CommandEnv, UNREACHABLE_EXIT, UsageError } from "./command";
import { databaseUnreachableSentence } from "./database-unreachable";
import { printable } from "./people/printable";
import { Stop } from "./people/refusal";

export async function run(
  argv: string[],
  env: CommandEnv,
  commandNamed: (name: string | undefined) => Promise<Command | undefined>,
  usage: string,
): Promise<number> {
  const [name, ...args] = argv;
  const command = await commandNamed(name);
  if (!command) {
    console.error(usage);
    return name === "help" || name === "--help" ? 0 : 64;
  }
  try {
    return await command(args, env);
  } catch (error) {
    if (error instanceof Stop) {
      // The service's sentence (never a token); with --json, its JSON answer too, for scripts.
      if (args.includes("--json") && error.body !== undefined) process.stdout.write(`${JSON.stringify(error.body, null, 2)}\n`);
      console.error(printable(error.message));
      return error.exitStatus;
    }
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${usage}`);
      return 64;
    }
    // A database that refuses the connection (the local stack not running): say so, and which variable named it.
    const unreachable = databaseUnreachableSentence(error, env);
    if (unreachable) {
      console.error(unreachable);
      return UNREACHABLE_EXIT;
    }
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}
