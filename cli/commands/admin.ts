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
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { nodePool } from "../../db/node-pool";
import { operatorSessions, operators } from "../../db/schema/operators";
import { inTransaction, type Tx } from "../../db/transaction";
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

  const pool = nodePool(url, "svc_operator");
  const work = <T>(body: (tx: Tx) => Promise<T>) => inTransaction(pool.connect, {}, body);
  try {
    return await run(sub as (typeof SUBCOMMANDS)[number], login!, env, work);
  } finally {
    await pool.end();
  }
};

/** Operators are found by login regardless of case (the unique index is on lower(login)). */
const byLogin = (login: string) => eq(sql`lower(${operators.login})`, sql`lower(${login})`);

async function run(sub: (typeof SUBCOMMANDS)[number], login: string, env: CommandEnv, work: <T>(body: (tx: Tx) => Promise<T>) => Promise<T>): Promise<number> {
  if (sub === "list") {
    const rows = await work((tx) =>
      tx
        .select({ login: operators.login })
        .from(operators)
        .orderBy(asc(sql`lower(${operators.login})`)),
    );
    for (const row of rows) console.log(row.login);
    return 0;
  }
  if (sub === "remove") {
    const removed = await work((tx) => tx.delete(operators).where(byLogin(login)).returning({ id: operators.id }));
    if (removed.length === 0) return fail(`No operator has the login "${login}".`);
    console.error(`Removed the operator ${login}; their portal sessions ended with them.`);
    return 0;
  }

  const read = await readNewPassword(env);
  if ("problem" in read) return fail(read.problem);
  const passwordHash = await hashPassword(read.password);

  if (sub === "reset-password") {
    const changed = await work(async (tx) => {
      const [operator] = await tx.update(operators).set({ passwordHash, passwordChangedAt: sql`now()` }).where(byLogin(login)).returning({ id: operators.id });
      if (!operator) return false;
      await tx
        .update(operatorSessions)
        .set({ signedOutAt: sql`now()` })
        .where(and(eq(operatorSessions.operatorId, operator.id), isNull(operatorSessions.signedOutAt)));
      return true;
    });
    if (!changed) return fail(`No operator has the login "${login}".`);
    console.error(`The password of ${login} is changed; their portal sessions are signed out.`);
    return 0;
  }

  const outcome = await work(async (tx) => {
    // Two bootstraps at once must not both find no operator.
    await tx.execute(sql`LOCK TABLE ${operators} IN SHARE ROW EXCLUSIVE MODE`);
    if (sub === "bootstrap" && (await tx.select({ id: operators.id }).from(operators).limit(1)).length > 0) return "bootstrapped" as const;
    if ((await tx.select({ id: operators.id }).from(operators).where(byLogin(login))).length > 0) return "taken" as const;
    const [created] = await tx.insert(operators).values({ login, passwordHash }).returning({ id: operators.id });
    return created!;
  });
  if (outcome === "bootstrapped") return fail("An operator already exists, so there is nothing to bootstrap; add another with `svc admin add <login>`.");
  if (outcome === "taken") return fail(`An operator with the login "${login}" already exists.`);
  console.log(JSON.stringify({ id: outcome.id, login }));
  return 0;
}

function fail(message: string): number {
  console.error(message);
  return 1;
}
