// Imports run one way (DESIGN: map of the code): no module imports itself back through others, and no
// folder imports a folder above it. Read from the sources themselves, so a new file is held to it at once.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SKIP = new Set(["node_modules", ".git", ".data", ".wrangler", "console-out", "dist"]);

interface Edge {
  to: string;
  /** Erased when compiled (`import type`, or every named import marked `type`): no run-time dependency. */
  typeOnly: boolean;
}

function sources(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [relative(ROOT, path)] : [];
  });
}

function resolve(from: string, specifier: string): string | null {
  const base = normalize(join(dirname(from), specifier));
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) {
    const path = join(ROOT, candidate);
    if (existsSync(path) && statSync(path).isFile()) return candidate;
  }
  return null;
}

const STATIC = /(?:^|[\n;])\s*(?:import|export)\s+(type\s+)?([\w*{}\s,$]*?)\s*from\s*["']([^"']+)["']/g;
const BARE = /(?:^|\n)\s*import\s*["']([^"']+)["']/g;
const DYNAMIC = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** Every relative import of a file (static, side-effect and dynamic), resolved to the file it names. */
function importsOf(file: string): Edge[] {
  const text = readFileSync(join(ROOT, file), "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");
  const found: Array<{ specifier: string; typeOnly: boolean }> = [];
  for (const [, typeKeyword, bindings = "", specifier = ""] of text.matchAll(STATIC)) {
    const named =
      bindings
        .trim()
        .match(/^\{([\s\S]*)\}$/)?.[1]
        ?.split(",")
        .map((name) => name.trim())
        .filter(Boolean) ?? [];
    found.push({ specifier, typeOnly: Boolean(typeKeyword) || (named.length > 0 && named.every((name) => name.startsWith("type "))) });
  }
  for (const [, specifier = ""] of text.matchAll(BARE)) found.push({ specifier, typeOnly: false });
  for (const [, specifier = ""] of text.matchAll(DYNAMIC)) found.push({ specifier, typeOnly: false });
  return found.flatMap(({ specifier, typeOnly }) => {
    if (!specifier.startsWith(".")) return [];
    const to = resolve(file, specifier);
    if (to === null) throw new Error(`${file} imports ${specifier}, which names no file`);
    return [{ to, typeOnly }];
  });
}

const GRAPH = new Map(sources().map((file) => [file, importsOf(file)]));
const top = (file: string) => file.split("/")[0]!;

/** Strongly connected groups of more than one file over run-time imports (Tarjan). */
function cycles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const { to, typeOnly } of GRAPH.get(file) ?? []) {
      if (typeOnly) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1) found.push(group.sort());
  };
  for (const file of GRAPH.keys()) if (!index.has(file)) visit(file);
  return found;
}

/**
 * The folders each top-level folder may import at run time, beside itself. `test/` and `bench/` stand
 * above everything. The Worker's entry (worker/index.ts) alone names the Durable Object classes, to
 * hand them to the platform.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  db: [],
  worker: ["db"],
  "durable-objects": ["worker", "db"],
  fakes: ["worker"],
  cli: ["worker", "db"],
  local: ["cli", "fakes", "worker", "db"],
  site: ["worker", "db"],
  scripts: ["worker", "db"],
  console: [],
};
const ENTRY = "worker/index.ts";

function violations(): string[] {
  const found: string[] = [];
  for (const [file, edges] of GRAPH) {
    const from = top(file);
    const allowed = MAY_IMPORT[from];
    if (!allowed) continue;
    for (const { to, typeOnly } of edges) {
      const target = top(to);
      if (target === from) continue;
      if (file === ENTRY && target === "durable-objects") continue;
      // The browser's bundle carries only worker/shared/ at run time; types come from anywhere.
      if (from === "console" && (typeOnly || to.startsWith("worker/shared/"))) continue;
      // A type names no module at run time, but the Worker still never names a Durable Object class.
      if (typeOnly && !(from === "worker" && target === "durable-objects") && !(from === "db")) continue;
      if (!allowed.includes(target)) found.push(`${file} -> ${to}`);
    }
  }
  return found;
}

describe("the import graph", () => {
  it("reads a file's imports, type-only ones marked", () => {
    expect(GRAPH.get("worker/env.ts")).toContainEqual({ to: "worker/objects.ts", typeOnly: true });
    expect(GRAPH.get(ENTRY)!.map((edge) => edge.to)).toContain("durable-objects/environment.ts");
  });

  it("has no cycle of run-time imports", () => {
    expect(cycles()).toEqual([]);
  });

  it("has no folder importing a folder above it", () => {
    expect(violations()).toEqual([]);
  });

  it("keeps the schema index out of the Worker: it imports the one schema file it needs (db/README.md)", () => {
    const throughIndex = [...GRAPH].flatMap(([file, edges]) =>
      file.startsWith("worker/") ? edges.filter((edge) => !edge.typeOnly && edge.to === "db/schema/index.ts").map(() => file) : [],
    );
    expect(throughIndex).toEqual([]);
  });

  it("keeps what the browser shares with the Worker free of the Worker's run-time code", () => {
    const shared = [...GRAPH].filter(([file]) => file.startsWith("worker/shared/"));
    expect(shared.length).toBeGreaterThan(0);
    for (const [file, edges] of shared) {
      for (const { to } of edges) expect(`${file} -> ${to}`).toMatch(/-> (worker\/shared\/|db\/enums\.ts$)/);
    }
  });
});
