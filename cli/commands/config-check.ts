import { formatConfigErrors, parseConfig } from "../../worker/config/parse";
import { licenceSignatureProblem } from "../../worker/config/licence-signature";
import { describeConfig } from "../../worker/config/summary";
import { UsageError, type Command } from "../command";

/** Same checks as the Worker's isolate start (the licence signature too); exits 2 for licence errors, 1 for any other. */
export const configCheck: Command = async (args, env) => {
  if (args[0] !== "check") throw new UsageError("config: the only subcommand is `check`.");
  const result = parseConfig(env);
  for (const warning of result.warnings) console.error(`warning: ${warning}`);
  if (!result.ok) {
    console.error(formatConfigErrors(result.errors));
    return Math.max(...result.errors.map((error) => error.exitStatus));
  }
  const problem = await licenceSignatureProblem(result.config);
  if (problem !== null) {
    console.error(formatConfigErrors([{ variable: "SVC_LICENSE_KEY", message: problem, exitStatus: 2 }]));
    return 2;
  }
  const decided = describeConfig(result.config);
  if (decided.licence.state === "grace") console.error("warning: the licence has expired and works only until its grace period ends (graceEndsAt).");
  console.log(JSON.stringify(decided, null, 2));
  return 0;
};
