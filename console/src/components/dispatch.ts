// What a dispatch of engine work came to, in a sentence (a refusal is an answer, not an error).
import type { Outputs } from "../rpc";

type Dispatch = Outputs["load"]["run"]["dispatch"];

export function dispatchSentence(dispatch: Dispatch | null): string {
  if (!dispatch) return "No workflow was started (the environment names no branch); the engine finds the command when it polls.";
  if (dispatch.outcome === "dispatched") return "The workflow was started on the code host.";
  if (dispatch.outcome === "refused") return `The code host refused to start the workflow (${dispatch.refusalStatus}): ${dispatch.refusal}`;
  return "The code host could not be reached to start the workflow; try again.";
}
