// The import graph of our own sources: every relative import (static, side-effect, dynamic) of every
// TypeScript file, resolved to the file it names, type-only ones marked. Read from the sources
// themselves, so a new file is held to the rules at once (imports.node.ts, capabilities.node.ts).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";

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

export const GRAPH = new Map(sources().map((file) => [file, importsOf(file)]));
export const top = (file: string) => file.split("/")[0]!;
