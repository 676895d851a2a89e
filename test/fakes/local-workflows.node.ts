// `npm start` gives every fake repository the engine's workflow (local/workflows/): the file the
// console's dispatches name, declaring every input the Worker sends, so none is dropped.
import { expect, it } from "vitest";
import { localWorkflows } from "../../local/fake-codehost";
import { dispatchInputs } from "../../worker/codehost/workflow-inputs";
import { STANDARD_WORKFLOW } from "../../worker/environments/engine-work";

it("holds the standard workflow, declaring command, env_id and every input engine work adds", () => {
  const source = localWorkflows()[STANDARD_WORKFLOW];
  expect(source).toBeDefined();
  // The inputs worker/environments/engine-work.ts and the procedures that call it send.
  expect(dispatchInputs(new TextEncoder().encode(source))).toEqual({
    ok: true,
    inputs: ["command", "env_id", "branch", "pull_request", "workflows", "run_id"],
  });
});
