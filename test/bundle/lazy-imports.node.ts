// What the Worker loads with import() stays lazy: no module that is loaded with the importer (the
// entry, or the same lazily loaded module) imports it statically, or the import() defers nothing and
// its code runs at isolate start. Read from the module graph esbuild (wrangler's bundler, same
// version) sees, so packages (the YAML library's module, tRPC's fetch adapter, the database driver) count as well.
import { build, type Metafile } from "esbuild";
import { describe, expect, it } from "vitest";

async function workerGraph(): Promise<Metafile> {
  const { metafile } = await build({
    entryPoints: ["worker/index.ts"],
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    external: ["cloudflare:*", "node:*"],
    loader: { ".sql": "text", ".yml": "text" },
    logLevel: "silent",
  });
  return metafile;
}

/** For every import() M -> T: the chunks M is loaded with that load T statically, as "chunk: M -> T". */
function eagerLazyImports(graph: Metafile, entry: string): string[] {
  const edges = (file: string, kind: "import-statement" | "dynamic-import") =>
    (graph.inputs[file]?.imports ?? []).filter((edge) => edge.kind === kind && !edge.external).map((edge) => edge.path);
  const closure = (root: string) => {
    const seen = new Set([root]);
    for (const file of seen) for (const next of edges(file, "import-statement")) seen.add(next);
    return seen;
  };
  const lazy = Object.keys(graph.inputs).flatMap((from) => edges(from, "dynamic-import").map((to) => ({ from, to })));
  const chunks = [entry, ...new Set(lazy.map(({ to }) => to))].map((root) => ({ root, files: closure(root) }));
  return lazy.flatMap(({ from, to }) => chunks.filter(({ files }) => files.has(from) && files.has(to)).map(({ root }) => `${root}: ${from} -> ${to}`));
}

/** Every module the entry loads statically: what runs at isolate start. */
function eagerClosure(graph: Metafile, entry: string): string[] {
  const seen = new Set([entry]);
  for (const file of seen) for (const edge of graph.inputs[file]?.imports ?? []) if (edge.kind === "import-statement" && !edge.external) seen.add(edge.path);
  return [...seen];
}

describe("lazily loaded modules", () => {
  it("are imported statically by nothing loaded with their importer", async () => {
    const graph = await workerGraph();
    const lazy = Object.values(graph.inputs).flatMap((input) => input.imports.filter((edge) => edge.kind === "dynamic-import"));
    expect(lazy.map((edge) => edge.path)).toEqual(expect.arrayContaining(["worker/apps.ts", "worker/codehost/yaml-library.mjs"]));
    expect(eagerLazyImports(graph, "worker/index.ts")).toEqual([]);
  });

  it("leave drizzle out of the isolate's start: it loads with the first request that reaches the database", async () => {
    const eager = eagerClosure(await workerGraph(), "worker/index.ts");
    expect(eager).toContain("db/transaction.ts");
    expect(eager.filter((file) => file.includes("node_modules/drizzle-orm/"))).toEqual([]);
  });
});
