import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { dispatchInputs } from "../../worker/codehost/workflow-inputs";
import { topLevelEntry, YamlUnread } from "../../worker/codehost/workflow-yaml";

describe("the inputs a workflow declares for manual dispatch", () => {
  const cases: Array<[string, string, string[] | null]> = [
    ["a map trigger with inputs", "on:\n  workflow_dispatch:\n    inputs:\n      env_id: {}\n      ttl: { required: false }\n", ["env_id", "ttl"]],
    ["a map trigger without inputs", "on:\n  push:\n  workflow_dispatch:\n", []],
    ["a list of triggers", "on: [push, workflow_dispatch]\n", []],
    ["a block list of triggers at the key's indentation", "on:\n- push\n- workflow_dispatch\njobs: {}\n", []],
    ["a single trigger", "on: workflow_dispatch\n", []],
    ["a quoted key and trigger", "\"on\": 'workflow_dispatch'\n", []],
    ["no manual trigger", "on:\n  push:\n    branches: [main]\n", null],
    ["no trigger at all", "name: x\n", null],
    ["a document that is not a map", "- a\n- b\n", null],
    ["a document that is one flow mapping", "{ name: x, on: { workflow_dispatch: { inputs: { a: {} } } } }\n", ["a"]],
  ];
  for (const [name, source, expected] of cases) {
    it(name, () => expect(dispatchInputs(source)).toEqual(expected));
  }

  it("throws on text that is not YAML", () => {
    expect(() => dispatchInputs("on: [unclosed")).toThrow(YamlUnread);
  });
});

// The workflow files the reader meets, each read as the `yaml` library (a general YAML 1.2 parser,
// a development dependency only) reads it: the trigger entry must come out the same.
const WORKFLOWS: Record<string, string> = {
  "a realistic preview workflow": `# Preview environments
name: Preview
on:
  workflow_dispatch:
    inputs:
      env_id:
        description: "Environment id # not a comment"
        required: true
        type: string
      ttl:
        description: >
          Hours to keep it up;
          folded text: with a colon
        default: '24'
      mode:
        type: choice
        options:
          - fast
          - 'slow'
  pull_request:
    types: [opened, synchronize]   # a comment
    branches:
    - main
    - 'release/**'
permissions:
  contents: read
jobs:
  up:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: |
          echo "on: workflow_dispatch:"
          echo '# [not a flow'
`,
  "CRLF line ends, a document marker and blank lines": "---\r\nname: x\r\n\r\non:\r\n\r\n  workflow_dispatch:\r\n    inputs:\r\n\r\n      a:\r\n        default: 1\r\n",
  "a flow mapping over several lines": `on: { workflow_dispatch: { inputs: {
    a: { type: string, required: true },
    "b c": {} } },
  push: { branches: [main, "x, y"] } }
jobs: {}
`,
  "scalars of the core schema": `on:
  workflow_dispatch:
    inputs:
      n: { default: 42, required: false, x: ~, y: null, z: 1.5, h: 0x1F, o: 0o17, s: "tab\\tand \\u00e9", q: 'it''s' }
      plain: a plain
        scalar on two lines
  schedule:
    - cron: '0 3 * * *'
      timezone: UTC
    -   cron: "30 1 * * 1"
`,
  "block scalars: literal, folded, chomped": `on:
  workflow_dispatch:
    inputs:
      a:
        description: |
          first line
            indented # kept

          after a blank
      b:
        description: >-
          folded
          into one

          then a paragraph
            kept as is
          end
      c: { description: "x" }
      d:
        description: |+
          keep

      e:
        description: >
          one
`,
  "apostrophes inside plain scalars, beside comments and flow collections": `on:
  workflow_dispatch:
    inputs:
      a: { description: it's here, default: don't }
      b:
        description: the team's own # a comment, and it's one
  push:
    branches: [main, it's-a-branch] # what's this
`,
  "an empty trigger value and nested sequences": `on:
  workflow_dispatch:
  push:
    paths:
      - - nested
        - list
      -
        - another
`,
};

describe("the workflow reader agrees with a general YAML parser on the trigger entry", () => {
  for (const [name, source] of Object.entries(WORKFLOWS)) {
    it(name, () => expect(topLevelEntry(source, "on")).toEqual({ value: (parse(source) as { on: unknown }).on }));
  }

  it("does not read the other entries (an anchor in a job does not refuse the file)", () => {
    expect(topLevelEntry("on: workflow_dispatch\njobs:\n  a: &job { runs-on: x }\n  b: *job\n", "on")).toEqual({ value: "workflow_dispatch" });
    expect(topLevelEntry("name: x\njobs: {}\n", "on")).toBeUndefined();
  });

  const refused: Record<string, [string, RegExp]> = {
    "an alias in the trigger": ["on: *triggers\n", /line 1: an anchor, alias or tag/],
    "a tab as indentation": ["on:\n\tworkflow_dispatch:\n", /line 2: a tab/],
    "the key twice": ["on: push\non: workflow_dispatch\n", /line 2: the key on twice/],
    "a flow collection left open": ["on: [push,\n  workflow_dispatch\njobs: {}\n", /line 1: a flow collection without its \]/],
    "a line indented more than its neighbours": ["on:\n  push:\n  workflow_dispatch: {}\n      inputs: {}\n", /line 4/],
    "several documents": ["on: push\n---\non: workflow_dispatch\n", /line 2: a file of several documents/],
    "a quoted scalar left open": ["on: 'push\n", /line 1: a quoted scalar that is not closed/],
  };
  for (const [name, [source, message]] of Object.entries(refused)) {
    it(`refuses ${name}, naming the line`, () => {
      expect(() => topLevelEntry(source, "on")).toThrow(message);
    });
  }
});
