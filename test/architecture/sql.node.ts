// Where SQL lives (db/README.md): statements go through drizzle, whose `sql` template sends every
// value as a parameter. Only the pipeline (db/pipeline.ts) writes values into SQL text, and only the
// measured engine paths use it; only the pipeline, the driver adapters, the migration runner and
// the local stack's provisioning speak to the driver directly. Read from the sources themselves, so a
// new file is held to it at once.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
// Product code: everything that runs in the Worker, its objects, the commands and the local stack.
const PRODUCT = ["worker", "durable-objects", "db", "cli", "local", "scripts", "deploy", "fakes", "site", "bench"];
const SKIP = new Set(["node_modules", "migrations", "dist"]);

/**
 * Files that speak to the driver: the pipeline, the driver adapters, the migration runner, local
 * provisioning and the bridge's pool, and the ingest benchmark's baseline (the driver's own insert).
 */
const RAW_CLIENTS = new Set([
  "db/pipeline.ts",
  "db/roles.ts",
  "db/neon.ts",
  "db/node-pool.ts",
  "db/migrate.ts",
  "local/provision.ts",
  "local/backend-pool.ts",
  "bench/ingest-work.ts",
]);

/** The measured engine paths (bench/): ingestion's token look-up, the environment projection, the workload claim and heartbeat, the command claim and ack. */
const PIPELINE_USERS = new Set([
  "db/transaction.ts",
  "db/roles.ts",
  "db/readiness.ts",
  "db/neon.ts",
  "db/node-pool.ts",
  "db/migrate.ts",
  "worker/auth/bearer.ts",
  "worker/events/store.ts",
  "worker/environments/store.ts",
  "worker/workloads/claim.ts",
  "worker/workloads/heartbeat.ts",
  "worker/commands/lease.ts",
  "durable-objects/environment.ts",
  "durable-objects/environment-work.ts",
]);

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The code of a file without its comments (a comment may quote SQL). */
const code = (file: string) =>
  readFileSync(join(ROOT, file), "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");

const files = PRODUCT.flatMap(sources).map((file) => relative(ROOT, join(ROOT, file)));

/** Where `pattern` matches in `file` (a match may span lines), as "file:line: text of that line". */
function hits(file: string, pattern: RegExp): string[] {
  const text = code(file);
  return [...text.matchAll(new RegExp(pattern.source, "g"))].map((match) => {
    const line = text.slice(0, match.index).split("\n").length;
    return `${file}:${line}: ${text.split("\n")[line - 1]!.trim()}`;
  });
}

// A driver's query: `.query(` or `.query<` taking text (tRPC's `.query(({ ctx }) => ...)` and hono's `c.req.query(...)` take none).
const RAW_QUERY = /(?<!\breq)\.query\s*(<[^()]*>)?\(\s*(?![(\s]|async\b|\w+\s*=>|\))/;

describe("where SQL lives", () => {
  it("reads product code (the scan finds the files it guards)", () => {
    expect(files).toContain("worker/auth/bearer.ts");
    expect(files).toContain("db/pipeline.ts");
    expect(files.length).toBeGreaterThan(200);
  });

  it("sends text to the driver only from the pipeline, the driver adapters, the migration runner and local provisioning", () => {
    expect(files.filter((file) => !RAW_CLIENTS.has(file)).flatMap((file) => hits(file, RAW_QUERY))).toEqual([]);
  });

  it("builds no SQL from strings: no sql.raw, no Statement made outside the pipeline", () => {
    const found = files.flatMap((file) => hits(file, /\bsql\.raw\s*\(/));
    const casts = files.filter((file) => file !== "db/pipeline.ts").flatMap((file) => hits(file, /\bas (unknown as )?Statement\b/));
    expect([...found, ...casts]).toEqual([]);
  });

  it("lets only the engine paths (and the transaction and driver code beneath them) use the pipeline", () => {
    const users = files.filter((file) => /from\s+["'][./]*(db\/)?pipeline["']/.test(code(file)) && file !== "db/pipeline.ts");
    expect(users.filter((file) => !PIPELINE_USERS.has(file))).toEqual([]);
  });

  it("recognises what it refuses", () => {
    for (const line of ["await tx.sql.query(`SELECT 1`)", "client.query<{\n  a: string;\n}>(TEXT, [a])", 'client.query("BEGIN")'])
      expect(RAW_QUERY.test(line), line).toBe(true);
    for (const line of ["  .query(({ ctx }) =>", 'c.req.query("limit")', ".query(async ({ ctx }) => {", "const limit = c.req.query('x')"])
      expect(RAW_QUERY.test(line), line).toBe(false);
  });
});
