// Starting a workflow in a customer's repository as the App (spec: Pull model): an installation token
// for the repository's owner, then a dispatch carrying only the inputs the workflow declares.
// Whatever the code host answers is recorded; a refused dispatch is kept with the refusal. The
// attempt holds no transaction; the record is written after it, in the caller's.
import { workflowDispatches } from "../../db/schema/codehost";
import type { Transaction, Tx } from "../../db/transaction";
import type { CodehostConfig } from "../config/types";
import { appAccessTo } from "./app-access";
import { callCodehost, CodehostUnreachable, describeAnswer } from "./codehost-api";
import { ownerOf } from "../http/repository-name";
import { dispatchInputs, loadYaml } from "./workflow-inputs";

export interface DispatchRequest {
  orgId: string;
  /** `owner/name`. */
  repository: string;
  /** The workflow's file name under .github/workflows, e.g. `preview.yml`. */
  workflow: string;
  /** Branch or tag the workflow runs on. */
  ref: string;
  inputs: Record<string, string>;
}

export type DispatchOutcome = "dispatched" | "refused" | "unreachable";

export interface DispatchRecord {
  id: string;
  outcome: DispatchOutcome;
  /** The code host's HTTP status when it refused; null when it did not answer or was never asked. */
  refusalStatus: number | null;
  /** A sentence saying what was refused and why; null when dispatched. */
  refusal: string | null;
  /** What was sent: the declared inputs only. */
  inputs: Record<string, string>;
  droppedInputs: string[];
}

export type Attempt = Omit<DispatchRecord, "id">;

const refused = (refusalStatus: number | null, refusal: string, inputs: Record<string, string> = {}, droppedInputs: string[] = []): Attempt => ({
  outcome: "refused",
  refusalStatus,
  refusal,
  inputs,
  droppedInputs,
});

const path = (...segments: string[]) => segments.map(encodeURIComponent).join("/");

const decodeBase64 = (base64: string) => Uint8Array.from(atob(base64.replace(/\s+/g, "")), (char) => char.charCodeAt(0));

async function tryDispatch(transaction: Transaction, codehost: CodehostConfig, request: DispatchRequest): Promise<Attempt> {
  const { repository, workflow, ref } = request;
  const access = await appAccessTo(transaction, codehost, ownerOf(repository));
  if (!access.ok) return refused(access.status, access.reason);
  const { token } = access;
  const repo = path(...repository.split("/"));
  const file = await callCodehost(codehost.apiBase, "GET", `/repos/${repo}/contents/.github/workflows/${path(workflow)}?ref=${encodeURIComponent(ref)}`, token);
  const content = (file.body as { content?: unknown } | null)?.content;
  if (file.status !== 200 || typeof content !== "string") {
    return refused(file.status, `The workflow ${workflow} could not be read from ${repository} at ${ref} (${describeAnswer(file)}).`);
  }
  // The YAML library is loaded here, on first use, not at isolate start.
  const read = dispatchInputs(decodeBase64(content), await loadYaml());
  if (!read.ok) return refused(null, `The workflow ${workflow} in ${repository} at ${ref} could not be read as YAML (${read.reason}), so it was not started.`);
  const declared = read.inputs;
  if (!declared) return refused(null, `The workflow ${workflow} in ${repository} has no workflow_dispatch trigger, so it cannot be started from here.`);

  const inputs = Object.fromEntries(Object.entries(request.inputs).filter(([name]) => declared.includes(name)));
  const droppedInputs = Object.keys(request.inputs).filter((name) => !declared.includes(name));
  const answer = await callCodehost(codehost.apiBase, "POST", `/repos/${repo}/actions/workflows/${path(workflow)}/dispatches`, token, { ref, inputs });
  if (answer.status === 204) return { outcome: "dispatched", refusalStatus: null, refusal: null, inputs, droppedInputs };
  return refused(answer.status, `The code host refused to start ${workflow} in ${repository} at ${ref} (${describeAnswer(answer)}).`, inputs, droppedInputs);
}

/** Records an attempt, in a transaction acting as the requesting organization. */
export async function recordDispatch(tx: Tx, request: DispatchRequest, attempt: Attempt): Promise<DispatchRecord> {
  const [row] = await tx
    .insert(workflowDispatches)
    .values({
      orgId: request.orgId,
      repository: request.repository,
      workflow: request.workflow,
      ref: request.ref,
      inputs: attempt.inputs,
      droppedInputs: attempt.droppedInputs,
      outcome: attempt.outcome,
      refusalStatus: attempt.refusalStatus,
      refusal: attempt.refusal,
    })
    .returning({ id: workflowDispatches.id });
  return { id: row!.id, ...attempt };
}

/** Asks the code host to start the workflow (`transaction` acts as the requesting organization); what it answers, for `recordDispatch`. */
export async function attemptDispatch(transaction: Transaction, codehost: CodehostConfig, request: DispatchRequest): Promise<Attempt> {
  try {
    return await tryDispatch(transaction, codehost, request);
  } catch (error) {
    if (!(error instanceof CodehostUnreachable)) throw error;
    return {
      outcome: "unreachable",
      refusalStatus: null,
      refusal: `The code host could not be reached (${error.message}), so ${request.workflow} was not started in ${request.repository}.`,
      inputs: {},
      droppedInputs: [],
    };
  }
}
