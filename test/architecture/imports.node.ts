// Imports run one way (DESIGN: map of the code): no module imports itself back through others, and no
// folder imports a folder above it. Read from the sources themselves, so a new file is held to it at once.
import { describe, expect, it } from "vitest";
import { GRAPH, specifiersIn, top } from "./graph";

/** Strongly connected groups of more than one file over run-time imports, or over every import with `types` (Tarjan). */
function cycles(types = false): string[][] {
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
      if (typeOnly && !types) continue;
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
  // The deploy checks the configuration as `svc config check` does and rehearses on the benchmarks' stack.
  deploy: ["bench", "local", "cli", "worker", "db"],
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
    expect(GRAPH.get("worker/env.ts")).toContainEqual({ to: "worker/object-interfaces.ts", typeOnly: true });
    expect(GRAPH.get(ENTRY)!.map((edge) => edge.to)).toContain("durable-objects/environment.ts");
  });

  it("reads code as code: text in comments and strings is no import, and none is hidden by what a comment holds", () => {
    const source = [
      "// POST /rpc/* answers here",
      'import { a } from "./a";',
      "/* import { b } from './b'; */",
      "const text = \"import { c } from './c'\";",
      'export type { T } from "./t";',
      'export { u, type U } from "./u";',
      'import "./side-effect";',
      'const later = () => import("./later");',
      'type Later = typeof import("./later-type");',
    ].join("\n");
    expect(specifiersIn("example.ts", source)).toEqual([
      { specifier: "./a", typeOnly: false },
      { specifier: "./side-effect", typeOnly: false },
      { specifier: "./t", typeOnly: true },
      { specifier: "./u", typeOnly: false },
      { specifier: "./later", typeOnly: false },
      { specifier: "./later-type", typeOnly: true },
    ]);
  });

  it("has no cycle of run-time imports", () => {
    expect(cycles()).toEqual([]);
  });

  it("has no cycle even of type imports: the request's context and the objects' interfaces sit at the bottom", () => {
    expect(cycles(true)).toEqual([]);
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
