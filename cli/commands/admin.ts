// Operators of the service (not customers) from the command line, as the operator role
// (SVC_ADMIN_DATABASE_URL). A password is read only from SVC_ADMIN_BOOTSTRAP_PASSWORD or standard
// input, never from an argument (arguments end up in shell history and process listings).
//   admin bootstrap <login>        the first operator; refused once one exists
//   admin add <login>              another operator
//   admin reset-password <login>   a new password; the operator's portal sessions end
//   admin remove <login>           removes the operator and their sessions
//   admin list                     logins, one a line
import { parseArgs } from "node:util";
import { hashPassword, OPERATOR_LOGIN, passwordProblem } from "../../worker/operators/password";
import { withNodeClient } from "../../db/node-pool";
import { requireVariable, UsageError, type Command, type CommandEnv } from "../command";

export const PASSWORD_VARIABLE = "SVC_ADMIN_BOOTSTRAP_PASSWORD";
const NO_PASSWORD_ARGUMENT = `admin: a password is never given as an argument; set ${PASSWORD_VARIABLE} or send it on standard input.`;
const SUBCOMMANDS = ["bootstrap", "add", "reset-password", "remove", "list"] as const;

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write("Password (input is shown): ");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    // A person typing: the first line is the password.
    if (process.stdin.isTTY && chunk.includes(10)) break;
  }
  const text = Buffer.concat(chunks).toString("utf8");
  // The one line break that ends what was typed or piped is not part of the password.
  return process.stdin.isTTY ? text.split(/\r?\n/)[0]! : text.replace(/\r?\n$/, "");
}

/** The new password from the environment or standard input, or why it is refused. */
export async function readNewPassword(env: CommandEnv, stdin: () => Promise<string> = readStdin): Promise<{ password: string } | { problem: string }> {
  const fromEnv = env[PASSWORD_VARIABLE];
  const password = fromEnv !== undefined ? fromEnv : await stdin();
  const problem = passwordProblem(password);
  return problem ? { problem: `The password from ${fromEnv !== undefined ? PASSWORD_VARIABLE : "standard input"} is refused: ${problem}` } : { password };
}

export const admin: Command = async (args, env) => {
  let positionals: string[];
  try {
    ({ positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: {} }));
  } catch {
    throw new UsageError(NO_PASSWORD_ARGUMENT); // any option: the likeliest is --password
  }
  const [sub, login, ...extra] = positionals;
  if (!SUBCOMMANDS.includes(sub as (typeof SUBCOMMANDS)[number])) throw new UsageError(`admin: expected one of ${SUBCOMMANDS.join(", ")}.`);
  if (sub === "list") {
    if (login !== undefined) throw new UsageError("admin list takes no argument.");
  } else {
    if (!login) throw new UsageError(`admin ${sub}: name the operator's login.`);
    if (extra.length > 0) throw new UsageError(NO_PASSWORD_ARGUMENT);
    if (!OPERATOR_LOGIN.test(login)) throw new UsageError(`admin: "${login}" is not a login (letters, digits, dot, dash, underscore; up to 64).`);
  }
  const url = requireVariable(env, "SVC_ADMIN_DATABASE_URL");

  if (sub === "list") {
    const { rows } = await withNodeClient(url, (client) => client.query<{ login: string }>("SELECT login FROM operators ORDER BY lower(login)"));
    for (const row of rows) console.log(row.login);
    return 0;
  }
  if (sub === "remove") {
    const { rowCount } = await withNodeClient(url, (client) => client.query("DELETE FROM operators WHERE lower(login) = lower($1)", [login]));
    if (!rowCount) return fail(`No operator has the login "${login}".`);
    console.error(`Removed the operator ${login}; their portal sessions ended with them.`);
    return 0;
  }

  const read = await readNewPassword(env);
  if ("problem" in read) return fail(read.problem);
  const hash = await hashPassword(read.password);

  if (sub === "reset-password") {
    return withNodeClient(url, async (client) => {
      await client.query("BEGIN");
      const { rows } = await client.query<{ id: string }>(
        "UPDATE operators SET password_hash = $2, password_changed_at = now() WHERE lower(login) = lower($1) RETURNING id",
        [login, hash],
      );
      if (!rows[0]) {
        await client.query("ROLLBACK");
        return fail(`No operator has the login "${login}".`);
      }
      await client.query("UPDATE operator_sessions SET signed_out_at = now() WHERE operator_id = $1 AND signed_out_at IS NULL", [rows[0].id]);
      await client.query("COMMIT");
      console.error(`The password of ${login} is changed; their portal sessions are signed out.`);
      return 0;
    });
  }

  return withNodeClient(url, async (client) => {
    await client.query("BEGIN");
    // Two bootstraps at once must not both find no operator.
    await client.query("LOCK TABLE operators IN SHARE ROW EXCLUSIVE MODE");
    if (sub === "bootstrap" && (await client.query("SELECT 1 FROM operators LIMIT 1")).rowCount) {
      await client.query("ROLLBACK");
      return fail("An operator already exists, so there is nothing to bootstrap; add another with `svc admin add <login>`.");
    }
    if ((await client.query("SELECT 1 FROM operators WHERE lower(login) = lower($1)", [login])).rowCount) {
      await client.query("ROLLBACK");
      return fail(`An operator with the login "${login}" already exists.`);
    }
    const { rows } = await client.query<{ id: string }>("INSERT INTO operators (login, password_hash) VALUES ($1, $2) RETURNING id", [login, hash]);
    await client.query("COMMIT");
    console.log(JSON.stringify({ id: rows[0]!.id, login }));
    return 0;
  });
};

function fail(message: string): number {
  console.error(message);
  return 1;
}
