// What an operator command says when its database refuses the connection: which variable named it
// and how to start the local one, instead of the driver's `connect ECONNREFUSED 127.0.0.1:54329`.
import type { CommandEnv } from "./command";

interface Refused {
  address?: string;
  port?: number;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost", "[::1]"]);

/** The refused connection inside `error` (node-postgres throws it plain, or one per address as an AggregateError). */
function refusedConnection(error: unknown, depth = 0): Refused | null {
  if (depth > 4 || typeof error !== "object" || error === null) return null;
  const { code, address, port, errors, cause } = error as { code?: unknown; address?: unknown; port?: unknown; errors?: unknown; cause?: unknown };
  if (code === "ECONNREFUSED") {
    const inner = Array.isArray(errors) ? errors.map((each) => refusedConnection(each, depth + 1)).find((each) => each?.port !== undefined) : undefined;
    return inner ?? { address: typeof address === "string" ? address : undefined, port: typeof port === "number" ? port : undefined };
  }
  if (Array.isArray(errors)) {
    for (const each of errors) {
      const found = refusedConnection(each, depth + 1);
      if (found) return found;
    }
  }
  return refusedConnection(cause, depth + 1);
}

/** The `*DATABASE_URL` variables of `env` whose address is the refused one (by port when the host is a loopback name). */
function variablesNaming(env: CommandEnv, refused: Refused): string[] {
  const named: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!name.endsWith("DATABASE_URL") || !value) continue;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      continue;
    }
    const port = Number(url.port || 5432);
    const sameHost = url.hostname === refused.address || (LOOPBACK.has(url.hostname) && LOOPBACK.has(refused.address ?? "localhost"));
    if (port === refused.port && sameHost) named.push(name);
  }
  return named.sort();
}

/** The sentence for a refused database connection, or null when `error` is something else. */
export function databaseUnreachableSentence(error: unknown, env: CommandEnv): string | null {
  const refused = refusedConnection(error);
  if (!refused) return null;
  const where =
    refused.port === undefined
      ? "the database's address"
      : `${refused.address?.includes(":") ? `[${refused.address}]` : (refused.address ?? "localhost")}:${refused.port}`;
  const names = variablesNaming(env, refused);
  const variable = names.length > 0 ? names.join(" / ") : "the command's *_DATABASE_URL variable (SVC_DATABASE_URL, SVC_MIGRATION_DATABASE_URL, ...)";
  const local = LOOPBACK.has(refused.address ?? "localhost");
  return local
    ? `Nothing answers at ${where}, the database ${variable} names: the local database is not running. Start it with \`npm start\` (in another shell; it runs until Ctrl-C), or set ${variable} to a PostgreSQL that runs.`
    : `The database at ${where}, which ${variable} names, refuses connections: check that it runs and that ${variable} names it.`;
}
