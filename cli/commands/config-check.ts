import { formatConfigErrors, parseConfig } from "../../worker/config/parse";
import { licenceSignatureProblem } from "../../worker/config/licence-signature";
import { describeConfig } from "../../worker/config/summary";
import { UsageError, type Command } from "../command";

/**
 * Same checks as the Worker's isolate start (the licence signature too); exits 2 for licence errors, 1
 * for any other. `--database` also asks the database whether the application and operator logins may
 * serve (db/roles.ts), as the Worker asks on its first connection: a deploy pipeline's check before it.
 */
export const configCheck: Command = async (args, env) => {
  if (args[0] !== "check" || args.slice(1).some((arg) => arg !== "--database"))
    throw new UsageError("config: the only subcommand is `check`, and its only option `--database`.");
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
  if (args.includes("--database")) {
    // Loaded only here: the Worker's own tests run this command's configuration check in workerd, where node-postgres does not load.
    const [{ withNodeClient }, { confine, LoginRefused }] = await Promise.all([import("../../db/node-pool"), import("../../db/roles")]);
    const { url, adminUrl } = result.config.database;
    for (const [role, login] of [
      ["svc_app", url],
      ["svc_operator", adminUrl],
    ] as const) {
      if (!login) continue;
      const refused = await withNodeClient(login, (client) => confine(client, role, login)).then(
        () => null,
        (error: unknown) => {
          if (error instanceof LoginRefused) return error.message;
          throw error;
        },
      );
      if (refused) {
        console.error(refused);
        return 1;
      }
    }
  }
  const decided = describeConfig(result.config);
  if (decided.licence.state === "grace") console.error("warning: the licence has expired and works only until its grace period ends (graceEndsAt).");
  console.log(JSON.stringify(decided, null, 2));
  return 0;
};
