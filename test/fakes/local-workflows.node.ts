// `npm start` gives every fake repository the engine's workflow (worker/environments/control-plane.yml):
// the file the console's dispatches name and Getting started shows, declaring every input the Worker
// sends, so none is dropped.
import { expect, it } from "vitest";
import { localWorkflows } from "../../local/fake-codehost";
import { dispatchInputs, loadYaml } from "../../worker/codehost/workflow-inputs";
import { STANDARD_WORKFLOW, standardWorkflowText, WORKFLOW_ADDRESS } from "../../worker/environments/engine-work";

const yaml = await loadYaml();

it("holds the standard workflow, declaring command, env_id and every input engine work adds", () => {
  const source = localWorkflows()[STANDARD_WORKFLOW];
  expect(source).toBeDefined();
  // The inputs worker/environments/engine-work.ts and the procedures that call it send.
  expect(dispatchInputs(new TextEncoder().encode(source), yaml)).toEqual({
    ok: true,
    inputs: ["command", "env_id", "branch", "pull_request", "workflows", "run_id"],
  });
});

it("is the file Getting started shows, with the control plane's address where the repository variable was", () => {
  const source = localWorkflows()[STANDARD_WORKFLOW]!;
  const shown = standardWorkflowText("https://cp.example");
  expect(source).toContain(`SVC_CONTROL_PLANE: ${WORKFLOW_ADDRESS}\n`);
  expect(shown).toBe(source.replace(WORKFLOW_ADDRESS, "https://cp.example"));
  expect(dispatchInputs(new TextEncoder().encode(shown), yaml)).toEqual(dispatchInputs(new TextEncoder().encode(source), yaml));
});
