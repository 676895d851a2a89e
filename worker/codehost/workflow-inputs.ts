// Which inputs a workflow declares for manual dispatch, read from its file: the code host refuses a
// dispatch carrying any other input, so only these are sent.
import { topLevelEntry } from "./workflow-yaml";

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The declared input names, or null when the workflow cannot be dispatched by hand (no workflow_dispatch trigger). Throws YamlUnread on a file it cannot read. */
export function dispatchInputs(workflowSource: string): string[] | null {
  const on = topLevelEntry(workflowSource, "on")?.value;
  if (on === "workflow_dispatch" || (Array.isArray(on) && on.includes("workflow_dispatch"))) return [];
  if (!isRecord(on) || !("workflow_dispatch" in on)) return null;
  const dispatch = on.workflow_dispatch;
  return isRecord(dispatch) && isRecord(dispatch.inputs) ? Object.keys(dispatch.inputs) : [];
}
