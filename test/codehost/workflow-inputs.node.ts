// The reader's question (which inputs does the workflow declare for manual dispatch?) over a corpus
// of workflow files written the way real repositories write them, each also with CRLF line ends, and
// generated edge cases. Each answer is checked against one written by hand and against one computed
// here from the library's plain `parse`, in the most direct way.
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { dispatchInputs, loadYaml, WORKFLOW_MAX_BYTES, WORKFLOW_MAX_DEPTH } from "../../worker/codehost/workflow-inputs";

const CORPUS = import.meta.glob("./workflows/*.yml", { query: "?raw", import: "default", eager: true }) as Record<string, string>;

const EXPECTED: Record<string, string[] | null> = {
  "anchor-whole-on.yml": ["command", "env_id"],
  "anchors-in-jobs.yml": ["suite", "second_suite"],
  "anchors-in-on.yml": ["env_id", "ttl"],
  "block-list-of-triggers.yml": [],
  "ci-matrix.yml": null,
  "comments-everywhere.yml": ["ref", "url"],
  "dispatch-choice-inputs.yml": ["environment", "log_level", "dry_run", "replicas", "tags"],
  "document-end-and-bom.yml": ["only"],
  "empty-dispatch.yml": [],
  "explicit-keys.yml": ["mode"],
  "flow-over-lines.yml": ["a", "b"],
  "flow-style-on.yml": ["env_id", "ttl hours"],
  "folded-descriptions.yml": ["plan", "notes", "summary", "keep"],
  "heredoc-tabs.yml": ["target"],
  "inputs-null.yml": [],
  "licence-then-document-start.yml": ["debug"],
  "list-of-triggers.yml": [],
  "long-run-scripts.yml": ["version"],
  "multiline-quoted-description.yml": ["image", "note", "channel"],
  "no-dispatch.yml": null,
  "prototype-names.yml": ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"],
  "quoted-keys.yml": ["env-id", "it's"],
  "reusable-and-dispatch.yml": ["version", "prerelease"],
  "reusable-called.yml": null,
  "schedule-and-dispatch-nested.yml": ["force"],
  "single-trigger-no-inputs.yml": [],
  "tags-and-core-scalars.yml": ["count", "ratio", "enabled", "nothing", "octal", "hex", "text"],
  "unicode.yml": ["région", "emoji_🚀", "clé avec espace"],
  "value-on-next-line.yml": ["region", "size"],
};

const utf8 = (text: string) => new TextEncoder().encode(text);
const yaml = await loadYaml();
const read = (text: string) => dispatchInputs(utf8(text), yaml);

/** The question answered straight from `parse`: plain objects, own keys only. */
function fromPlainParse(text: string): string[] | null {
  const on = (parse(text) as { on?: unknown }).on;
  if (on === "workflow_dispatch" || (Array.isArray(on) && on.includes("workflow_dispatch"))) return [];
  if (typeof on !== "object" || on === null || !Object.hasOwn(on, "workflow_dispatch")) return null;
  const inputs = (Object.getOwnPropertyDescriptor(on, "workflow_dispatch")!.value as { inputs?: unknown } | null)?.inputs;
  return typeof inputs === "object" && inputs !== null ? Object.keys(inputs) : [];
}

describe("the reader over a corpus of workflow files", () => {
  const files = Object.keys(CORPUS)
    .map((path) => path.replace("./workflows/", ""))
    .sort();

  it("has an expectation written for each of at least 25 files", () => {
    expect(files.length).toBeGreaterThanOrEqual(25);
    expect(files).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const file of files) {
    const text = CORPUS[`./workflows/${file}`]!;
    it(`${file}: as written, and with CRLF line ends`, () => {
      expect(fromPlainParse(text)).toEqual(EXPECTED[file]);
      expect(read(text)).toEqual({ ok: true, inputs: EXPECTED[file] });
      expect(read(text.replace(/\r?\n/g, "\r\n"))).toEqual({ ok: true, inputs: EXPECTED[file] });
    });
  }
});

const inputsOf = (names: string) => `on:\n  workflow_dispatch:\n    inputs:\n${names}jobs: {}\n`;

describe("the defects of the hand-written reader, each a case", () => {
  it("reads anchors and aliases in on:", () => {
    const text = "x: &in\n  a: {}\n  b: {}\non:\n  push: &p { branches: [main] }\n  pull_request: *p\n  workflow_dispatch: { inputs: *in }\n";
    expect(read(text)).toEqual({ ok: true, inputs: ["a", "b"] });
  });

  it("reads a tab inside a run: | block (a <<-EOF heredoc)", () => {
    expect(
      read(`on: workflow_dispatch\njobs:\n  a:\n    steps:\n      - run: |\n          cat <<-EOF\n          \tindented by a tab\n          EOF\n`),
    ).toEqual({ ok: true, inputs: [] });
  });

  it("reads multi-line quoted descriptions", () => {
    expect(read(inputsOf(`      a:\n        description: "first\n          second"\n      b:\n        description: 'one\n\n          two'\n`))).toEqual({
      ok: true,
      inputs: ["a", "b"],
    });
  });

  it("reads a --- after a licence comment", () => {
    expect(read(`# SPDX-License-Identifier: MIT\n# Copyright the authors\n---\non:\n  workflow_dispatch:\n    inputs:\n      a: {}\n`)).toEqual({
      ok: true,
      inputs: ["a"],
    });
  });

  it("reads a value on the next line", () => {
    expect(
      read(
        `on:\n  workflow_dispatch:\n    inputs:\n      a:\n        description:\n          on the next line\n      b:\n        default:\n          "quoted, next line"\n`,
      ),
    ).toEqual({ ok: true, inputs: ["a", "b"] });
  });

  it("answers inputs named constructor, toString and __proto__ as data", () => {
    expect(read(inputsOf("      constructor: {}\n      toString: {}\n      __proto__: {}\n"))).toEqual({
      ok: true,
      inputs: ["constructor", "toString", "__proto__"],
    });
    // A trigger named like an object's member is not a workflow_dispatch trigger.
    expect(read("on:\n  constructor: {}\n")).toEqual({ ok: true, inputs: null });
    expect(read("toString: x\n")).toEqual({ ok: true, inputs: null });
  });

  it("reads a folded description of nearly the size limit", () => {
    const line = "          lorem ipsum dolor sit amet, consectetur adipiscing elit\n";
    const text = inputsOf(`      big:\n        description: >\n${line.repeat(Math.floor((WORKFLOW_MAX_BYTES - 200) / line.length))}`);
    expect(read(text)).toEqual({ ok: true, inputs: ["big"] });
  });

  it("refuses a 1 MB folded description by its size, unread", () => {
    const text = inputsOf(`      big:\n        description: >\n${"          word word word word word word word word\n".repeat(20_000)}`);
    expect(text.length).toBeGreaterThan(1_000_000);
    expect(read(text)).toEqual({ ok: false, reason: `the file is larger than ${WORKFLOW_MAX_BYTES / 1024} KiB, the most read` });
  });

  const tooDeep = { ok: false, reason: expect.stringMatching(new RegExp(`^line \\d+: nested more than ${WORKFLOW_MAX_DEPTH} levels deep$`)) };
  it("refuses nesting thousands of levels deep, however it is written", () => {
    expect(read(`on: workflow_dispatch\nx: ${"- ".repeat(5000)}x\n`)).toEqual(tooDeep);
    expect(read(`x:\n${Array.from({ length: 400 }, (_, i) => `${" ".repeat(i)}- `).join("\n")}x\n`)).toEqual(tooDeep);
    expect(read(`x: ${"[".repeat(5000)}${"]".repeat(5000)}\n`)).toEqual(tooDeep);
    expect(read(`x: ${"{a: ".repeat(5000)}${"}".repeat(5000)}\n`)).toEqual(tooDeep);
    expect(read(Array.from({ length: 400 }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n"))).toEqual(tooDeep);
    // A sequence at its key's own column, alternating: the count may fall short, but not without bound.
    expect(read(Array.from({ length: 400 }, (_, i) => " ".repeat(2 * Math.floor(i / 2)) + (i % 2 ? "- k:" : "k:")).join("\n"))).toEqual(tooDeep);
    expect(read(`x: ${"[".repeat(3000)}\n`)).toEqual(tooDeep);
  });

  it("reads nesting up to the limit, and refuses one level more", () => {
    const nested = (levels: number) => `on: workflow_dispatch\nx: ${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}\n`;
    expect(read(nested(WORKFLOW_MAX_DEPTH))).toEqual({ ok: true, inputs: [] });
    expect(read(nested(WORKFLOW_MAX_DEPTH + 1))).toEqual(tooDeep);
  });

  it("does not count brackets inside scripts, quotes or comments", () => {
    const brackets = "[".repeat(200);
    expect(
      read(
        `on: workflow_dispatch # ${brackets}\njobs:\n  a:\n    steps:\n      - run: |\n          echo "${brackets}"\n      - run: echo '${brackets}'\n      - run: "${brackets}"\n`,
      ),
    ).toEqual({ ok: true, inputs: [] });
  });
});

describe("files refused with a reason", () => {
  const refusals: Record<string, [string | Uint8Array, RegExp]> = {
    "an alias bomb": [
      "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\non: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n",
      /^Excessive alias count/,
    ],
    "text that is not YAML": [
      "on:\n  workflow_dispatch: [unclosed\njobs: {}\n",
      /^line 3: Flow sequence in block collection must be sufficiently indented and end with a \]$/,
    ],
    "the key twice": ["on: push\non: workflow_dispatch\n", /^line 2: Map keys must be unique$/],
    "several documents": ["on: push\n---\non: workflow_dispatch\n", /^line 2: a second document; a workflow file holds one$/],
    "an alias to no anchor": ["on: *missing\n", /^Unresolved alias \(the anchor must be set before the alias\): missing$/],
    "bytes that are not UTF-8": [new Uint8Array([0x6f, 0x6e, 0x3a, 0x20, 0xff, 0xfe, 0x0a]), /^the file is not UTF-8 text$/],
    "one byte over the size limit": [`on: workflow_dispatch\n#${"x".repeat(WORKFLOW_MAX_BYTES)}`, /^the file is larger than 128 KiB, the most read$/],
  };
  for (const [name, [file, reason]] of Object.entries(refusals)) {
    it(name, () => {
      const answer = dispatchInputs(typeof file === "string" ? utf8(file) : file, yaml);
      expect(answer).toEqual({ ok: false, reason: expect.stringMatching(reason) });
      if (!answer.ok) expect(answer.reason.length).toBeLessThanOrEqual(200);
    });
  }

  it("reads a file of exactly the size limit", () => {
    const head = "on: workflow_dispatch\n#";
    expect(read(head + "x".repeat(WORKFLOW_MAX_BYTES - head.length))).toEqual({ ok: true, inputs: [] });
  });

  it("reads an input name written in every scalar style the same", () => {
    for (const key of ["a b", "'a b'", '"a b"', '"a\\u0020b"', "? a b\n       "]) {
      expect(read(inputsOf(`      ${key}: {}\n`)), key).toEqual({ ok: true, inputs: ["a b"] });
    }
  });
});
