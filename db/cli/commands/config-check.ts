import { formatConfigErrors, parseConfig } from "../../../worker/config/parse";
import { describeConfig } from "../../../worker/config/summary";
import { UsageError, type Command } from "../command";

/** Same function as the Worker's isolate start; exits 2 for licence errors, 1 for any other. */
export const configCheck: Command = async (args, env) => {
  if (args[0] !== "check") throw new UsageError("config: the only subcommand is `check`.");
  const result = parseConfig(env);
  for (const warning of result.warnings) console.error(`warning: ${warning}`);
  if (!result.ok) {
    console.error(formatConfigErrors(result.errors));
    return Math.max(...result.errors.map((error) => error.exitStatus));
  }
  console.log(JSON.stringify(describeConfig(result.config), null, 2));
  return 0;
};
