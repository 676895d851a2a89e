// Where `npm start` keeps PostgreSQL's data: .data/postgres in the project. As root, the server runs
// as a `postgres` user that must be able to walk down to it; when a parent folder forbids that
// (a private home), a folder under /var/tmp named after the project is used instead.
import { statSync } from "node:fs";
import { createHash } from "node:crypto";
import { dirname } from "node:path";
import { DATA_DIR } from "./env-file";

function reachableByOthers(path: string): boolean {
  for (let dir = path; ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dir === dirname(dir)) return true;
  }
}

export function postgresDataDir(): string {
  const project = dirname(DATA_DIR);
  if (process.getuid?.() !== 0 || reachableByOthers(project)) return DATA_DIR + "postgres";
  return `/var/tmp/svc-postgres-${createHash("sha256").update(project).digest("hex").slice(0, 12)}`;
}
