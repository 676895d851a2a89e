import { describe, expect, it } from "vitest";
import { dispatchInputs } from "../../worker/codehost/workflow-inputs";

describe("the inputs a workflow declares for manual dispatch", () => {
  const cases: Array<[string, string, string[] | null]> = [
    ["a map trigger with inputs", "on:\n  workflow_dispatch:\n    inputs:\n      env_id: {}\n      ttl: { required: false }\n", ["env_id", "ttl"]],
    ["a map trigger without inputs", "on:\n  push:\n  workflow_dispatch:\n", []],
    ["a list of triggers", "on: [push, workflow_dispatch]\n", []],
    ["a single trigger", "on: workflow_dispatch\n", []],
    ["no manual trigger", "on:\n  push:\n    branches: [main]\n", null],
    ["no trigger at all", "name: x\n", null],
    ["a document that is not a map", "- a\n- b\n", null],
  ];
  for (const [name, source, expected] of cases) {
    it(name, () => expect(dispatchInputs(source)).toEqual(expected));
  }

  it("throws on text that is not YAML", () => {
    expect(() => dispatchInputs("on: [unclosed")).toThrow();
  });
});
