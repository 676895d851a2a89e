// The migrations as the operator command line and the local stack read them: the .sql files themselves.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Migration } from "./migrate";

const DIR = fileURLToPath(new URL("./migrations/", import.meta.url));

export function migrationsOnDisk(): Migration[] {
  return readdirSync(DIR)
    .filter((file) => file.endsWith(".sql"))
    .sort()
    .map((file) => ({ name: file.replace(/\.sql$/, ""), sql: readFileSync(DIR + file, "utf8") }));
}
