// The import graph of our own sources: every relative import (static, side-effect, dynamic) of every
// TypeScript file, resolved to the file it names, type-only ones marked. Parsed from the sources
// themselves, so a new file is held to the rules at once (imports.node.ts, capabilities.node.ts).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseSync } from "rolldown/utils";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SKIP = new Set(["node_modules", ".git", ".data", ".wrangler", "console-out", "dist"]);

export interface Edge {
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

/** The specifiers of every `import("...")` type in a syntax tree. */
function importTypes(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const child of node) importTypes(child, found);
  else if (node && typeof node === "object") {
    const { type, source } = node as { type?: unknown; source?: { value?: unknown } };
    if (type === "TSImportType" && typeof source?.value === "string") found.push(source.value);
    for (const child of Object.values(node)) importTypes(child, found);
  }
  return found;
}

/**
 * Every relative import of a file (static, side-effect, re-export and dynamic), resolved to the file it
 * names, read by a TypeScript parser (oxc, through rolldown's parseSync): comments, strings and
 * template text are never taken for imports, and a type-only one is known from the syntax itself.
 */
function importsOf(file: string): Edge[] {
  return specifiersIn(file, readFileSync(join(ROOT, file), "utf8")).flatMap(({ specifier, typeOnly }) => {
    if (!specifier.startsWith(".")) return [];
    const to = resolve(file, specifier);
    if (to === null) throw new Error(`${file} imports ${specifier}, which names no file`);
    return [{ to, typeOnly }];
  });
}

/** What `text` (the source of `file`) imports, as written. */
export function specifiersIn(file: string, text: string): Array<{ specifier: string; typeOnly: boolean }> {
  const parsed = parseSync(file, text);
  if (parsed.errors.length > 0) throw new Error(`${file} does not parse: ${parsed.errors[0]!.message}`);
  const { staticImports, staticExports, dynamicImports } = parsed.module;
  return [
    // A side-effect import has no entries: it runs the module.
    ...staticImports.map(({ moduleRequest, entries }) => ({
      specifier: moduleRequest.value,
      typeOnly: entries.length > 0 && entries.every((entry) => entry.isType),
    })),
    ...staticExports.flatMap(({ entries }) => {
      const from = entries.filter((entry) => entry.moduleRequest);
      return from.length === 0 ? [] : [{ specifier: from[0]!.moduleRequest!.value, typeOnly: from.every((entry) => entry.isType) }];
    }),
    // import("./x"): the literal's text between its quotes; a computed specifier names no file we could check.
    ...dynamicImports.flatMap(({ moduleRequest }) => {
      const literal = /^(["'])(.*)\1$/.exec(text.slice(moduleRequest.start, moduleRequest.end));
      return literal ? [{ specifier: literal[2]!, typeOnly: false }] : [];
    }),
    // `typeof import("./x")` in a type: erased, but a dependency of the types all the same.
    ...importTypes(parsed.program).map((specifier) => ({ specifier, typeOnly: true })),
  ];
}

export const GRAPH = new Map(sources().map((file) => [file, importsOf(file)]));
export const top = (file: string) => file.split("/")[0]!;
