// Which inputs a workflow declares for manual dispatch, read from its file with the `yaml` library
// (YAML 1.2, anchors and aliases included, as the code host reads workflows): the code host refuses
// a dispatch carrying any other input, so only these are sent. The file is bounded before it is
// parsed (size, then nesting: see tooDeepAt), and aliases are bounded as they expand. The library is a
// module of the upload beside the script (yaml-library.mjs, generated from the package), imported on
// the first dispatch: it costs nothing at isolate start and is not in the script.
import type { CST } from "./yaml-library.mjs";
import { decodeUtf8 } from "../http/input";

export type Yaml = typeof import("./yaml-library.mjs");

/** The library, loaded on first use. */
export const loadYaml = (): Promise<Yaml> => import("./yaml-library.mjs");

/** Bytes of a workflow file read at most: real ones are a few KiB, and past this the library's error paths cost seconds. */
export const WORKFLOW_MAX_BYTES = 128 * 1024;
/** Collections nested in one another at most; real workflows nest about ten deep. */
export const WORKFLOW_MAX_DEPTH = 64;
/** Alias expansions at most (the library's measure), against alias bombs. */
const MAX_ALIAS_COUNT = 100;

export type WorkflowInputs =
  /** `inputs` null: no workflow_dispatch trigger. */
  | { ok: true; inputs: string[] | null }
  /** Why the file was not read, for the refusal's sentence. */
  | { ok: false; reason: string };

/**
 * Where the text first nests deeper than the limit, or null. Read from the library's lexer, which is
 * linear (its parser is not, on deeply nested flow collections, and composing recurses): flow
 * brackets are counted, block collections by the columns their lines' first node and their `-` and
 * `?` indicators open. Quotes, comments and block scalars are the lexer's, so a `[` in a script is
 * not counted. The count may fall short of the nesting by a bounded factor (a sequence at its key's
 * own column, a `- key:` line), never without bound.
 */
function tooDeepAt(yaml: Yaml, source: string): number | null {
  const columns: number[] = [];
  let flow = 0;
  let offset = 0;
  let lineStart = 0;
  let firstOnLine = true;
  let scalarText = false;
  const opens = (column: number) => {
    while (columns.length > 0 && columns[columns.length - 1]! > column) columns.pop();
    if (columns[columns.length - 1] !== column) columns.push(column);
    return columns.length + flow > WORKFLOW_MAX_DEPTH;
  };
  for (const token of new yaml.Lexer().lex(source)) {
    const at = offset;
    // The lexer marks a plain or block scalar's text with a token of its own that is not in the source.
    const type: CST.TokenType | "scalar-text" | null = scalarText ? "scalar-text" : yaml.CST.tokenType(token);
    scalarText = type === "scalar";
    if (type === "scalar" || type === "doc-mode" || type === "flow-error-end") continue;
    offset += token.length;
    if (type === "newline") {
      lineStart = offset;
      firstOnLine = true;
    } else if (type === "doc-start" || type === "doc-end") columns.length = 0;
    else if (type !== "space" && type !== "comment" && type !== "directive-line" && type !== "byte-order-mark") {
      if (flow === 0 && (firstOnLine || type === "seq-item-ind" || type === "explicit-key-ind") && opens(at - lineStart)) return at;
      firstOnLine = false;
      if (type === "flow-seq-start" || type === "flow-map-start") {
        if (++flow + columns.length > WORKFLOW_MAX_DEPTH) return at;
      } else if ((type === "flow-seq-end" || type === "flow-map-end") && flow > 0) flow--;
    }
  }
  return null;
}

/** The workflow file as data, maps as Maps (an input named `constructor` is data, not a prototype's member), or why not. */
function readWorkflow(yaml: Yaml, file: Uint8Array): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (file.byteLength > WORKFLOW_MAX_BYTES) return { ok: false, reason: `the file is larger than ${WORKFLOW_MAX_BYTES / 1024} KiB, the most read` };
  const source = decodeUtf8(file);
  if (source === null) return { ok: false, reason: "the file is not UTF-8 text" };
  const at = (offset: number) => `line ${source.slice(0, offset).split("\n").length}`;
  const deep = tooDeepAt(yaml, source);
  if (deep !== null) return { ok: false, reason: `${at(deep)}: nested more than ${WORKFLOW_MAX_DEPTH} levels deep` };
  const documents = Array.from(new yaml.Composer().compose(new yaml.Parser().parse(source), true, source.length));
  if (documents.length > 1) return { ok: false, reason: `${at(documents[1]!.range[0])}: a second document; a workflow file holds one` };
  const document = documents[0]!;
  const error = document.errors[0];
  if (error) return { ok: false, reason: `${at(error.pos[0])}: ${error.message}` };
  try {
    return { ok: true, value: document.toJS({ mapAsMap: true, maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (thrown) {
    // The library's answer to an alias of no anchor, or to aliases expanding past maxAliasCount.
    if (thrown instanceof ReferenceError) return { ok: false, reason: thrown.message };
    throw thrown;
  }
}

/** The input names the workflow's `workflow_dispatch` trigger declares ([] for none), null when it has no such trigger, or why the file was not read. */
export function dispatchInputs(file: Uint8Array, yaml: Yaml): WorkflowInputs {
  const workflow = readWorkflow(yaml, file);
  // The library's messages may quote the file: a sentence, not the file.
  if (!workflow.ok) return { ok: false, reason: workflow.reason.slice(0, 200) };
  const on = workflow.value instanceof Map ? workflow.value.get("on") : undefined;
  if (on === "workflow_dispatch" || (Array.isArray(on) && on.includes("workflow_dispatch"))) return { ok: true, inputs: [] };
  if (!(on instanceof Map) || !on.has("workflow_dispatch")) return { ok: true, inputs: null };
  const dispatch: unknown = on.get("workflow_dispatch");
  const inputs: unknown = dispatch instanceof Map ? dispatch.get("inputs") : undefined;
  return { ok: true, inputs: inputs instanceof Map ? Array.from(inputs.keys(), String) : [] };
}
