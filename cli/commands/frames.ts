// `svc frames --map <index.js.map> [file]`: a failure's frames at their places in our source. The
// deployed upload is minified with its names (wrangler.toml), so the operator portal's failure samples
// and the logs' `frames` read `at Xe (index.js:1:52311)`; the deploy's source map (`wrangler deploy
// --outdir <dir>` writes `<dir>/index.js.map`; the sample's `build` names the deploy) turns each into
// `at Xe (worker/tokens/issue.ts:26:17)`: the place in our source (the name stays the minified one: a
// map names identifiers where they are written, not the function a position lies in). Reads a
// sample's JSON, a log line or bare frames, from the file or standard input.
import { readFileSync } from "node:fs";
import { SourceMap, type SourceMapPayload } from "node:module";
import { dirname, relative, resolve } from "node:path";
import { UsageError, type Command } from "../command";

// `at name (file:line:column)` or `at file:line:column`, as V8 writes a frame; stops where a JSON string would.
const FRAME = /at (?:([^"()\n]+?) \()?([^\s"()]+?):(\d+):(\d+)\)?/g;

/**
 * The place in the sources of `map` (read from `mapDir`) of a position in the bundle (line and column
 * counted from 0, as in a source map and a CPU profile), its file relative to `root` and its line and
 * column counted from 1; null where the map says nothing.
 */
export function sourcePlace(map: SourceMap, mapDir: string, root: string, line: number, column: number): { file: string; line: number; column: number } | null {
  const entry = map.findEntry(line, column) as Partial<{ originalSource: string; originalLine: number; originalColumn: number }>;
  if (entry.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined) return null;
  const file = relative(root, entry.originalSource.startsWith("file://") ? new URL(entry.originalSource).pathname : resolve(mapDir, entry.originalSource));
  return { file, line: entry.originalLine + 1, column: entry.originalColumn + 1 };
}

/**
 * Each frame found in `text`, at its place in the sources of `map` (read from `mapDir`), shown
 * relative to `root`; a frame the map does not cover is printed as it was.
 */
export function mapFrames(text: string, map: SourceMapPayload, mapDir: string, root: string): string[] {
  const sourceMap = new SourceMap(map);
  return [...text.matchAll(FRAME)].map(([frame, name, , line, column]) => {
    // V8 counts a frame's lines and columns from 1.
    const place = sourcePlace(sourceMap, mapDir, root, Number(line) - 1, Number(column) - 1);
    return place ? `at ${name ?? "<anonymous>"} (${place.file}:${place.line}:${place.column})` : frame;
  });
}

export const frames: Command = async (args) => {
  const mapAt = args.indexOf("--map");
  const mapFile = mapAt >= 0 ? args[mapAt + 1] : undefined;
  const rest = args.filter((_, index) => index !== mapAt && index !== mapAt + 1);
  if (!mapFile || rest.length > 1) throw new UsageError("usage: svc frames --map <index.js.map> [file]");
  const map = JSON.parse(readFileSync(mapFile, "utf8")) as SourceMapPayload;
  const text = rest[0] ? readFileSync(rest[0], "utf8") : await readAll();
  const mapped = mapFrames(text, map, dirname(resolve(mapFile)), process.cwd());
  if (mapped.length === 0) {
    console.error("No frames found (a frame reads `at name (index.js:1:2345)`).");
    return 1;
  }
  console.log(mapped.join("\n"));
  return 0;
};

async function readAll(): Promise<string> {
  let text = "";
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}
