// What the procedures that start engine work share (spec: Pull model): the console runs nothing
// itself; it asks the code host to run a workflow in the customer's repository, and answers the
// dispatch record, refused or not. The engine learns its work by polling, never from the inputs.
import { eq, sql } from "drizzle-orm";
import { organizations } from "../../db/schema/organizations";
import { organizationSuspended } from "../auth";
import { EnvId } from "./schemas";
import { Refusal } from "../http/refusal";
import { text } from "../http/text";
import type { Tx } from "../../db/transaction";
import { appendAudit } from "../audit";
import { attemptDispatch, recordDispatch } from "../codehost";
import { findEnvironment, type OneEnvironment } from "./read";
import standardWorkflowSource from "./control-plane.yml";
import type { OrgContext } from "../trpc/builder";

/** The workflow file the engine's setup puts in a repository; dispatched unless a procedure is told another. */
export const STANDARD_WORKFLOW = "control-plane.yml";

/** Where the standard workflow names the control plane's address: a repository variable until someone fills it in. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: an Actions expression, as the workflow file writes it
export const WORKFLOW_ADDRESS = "${{ vars.SVC_CONTROL_PLANE }}";

/** The standard workflow's text (control-plane.yml beside this file), with the address it reports to filled in. */
export const standardWorkflowText = (controlPlaneUrl: string) => standardWorkflowSource.replace(WORKFLOW_ADDRESS, controlPlaneUrl);

export const WorkflowFile = text({ min: 1, max: 100 })
  .regex(/^[A-Za-z0-9._-]+\.ya?ml$/, "must be a workflow file name such as control-plane.yml")
  .default(STANDARD_WORKFLOW)
  .describe(`The workflow file under .github/workflows; default ${STANDARD_WORKFLOW}.`);

export const EnvIdInput = EnvId.describe("The environment, as its engine names it in events.");

/** What the engine is asked to do, as the `command` input of the workflow. */
export type EngineCommand = "up" | "down" | "agents" | "load" | "workload";

/** The environment, or NOT_FOUND (another organization's answers the same). */
export async function environmentOf(tx: Tx, orgId: string, envId: string): Promise<OneEnvironment> {
  const environment = await findEnvironment(tx, orgId, envId);
  if (!environment) throw new Refusal("not_found", "No such environment in this organization.");
  return environment;
}

/**
 * Refuses new engine work while the organization is suspended: its engines' events and work
 * endpoints answer 403, so no engine could claim or report it. Checked before anything is stored or
 * dispatched. A teardown is not new work: its command is what a suspended organization's engine still claims.
 */
export async function refuseWhileSuspended(tx: Tx, orgId: string): Promise<void> {
  const [org] = await tx
    .select({ suspended: sql<boolean>`${organizations.suspendedAt} IS NOT NULL` })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  if (org?.suspended) {
    throw organizationSuspended("This organization is suspended, so no engine can take new work; nothing was recorded or dispatched.");
  }
}

/** An environment that can take new work: its organization not suspended, not torn down, and with a branch for the workflow to run on. */
export async function workableEnvironment(tx: Tx, orgId: string, envId: string): Promise<OneEnvironment & { branch: string }> {
  await refuseWhileSuspended(tx, orgId);
  const environment = await environmentOf(tx, orgId, envId);
  if (environment.state === "torn_down") throw new Refusal("state_conflict", `Environment ${envId} is torn down; create a new one.`);
  const { branch } = environment;
  if (branch === null) {
    throw new Refusal("state_conflict", `Environment ${envId} has no branch recorded, so there is nothing to run the workflow on.`);
  }
  return { ...environment, branch };
}

export interface EngineWork {
  /** The procedure asking, for the audit entry. */
  procedure: string;
  envId: string;
  repository: string;
  /** The branch the workflow runs on. */
  ref: string;
  workflow: string;
  command: EngineCommand;
  /** More inputs; the code host gets only those the workflow declares (the record says which were dropped). */
  inputs?: Record<string, string>;
}

/**
 * Dispatches the workflow, with no transaction open, and answers the record of the attempt:
 * dispatched, refused or unreachable, recorded with its audit entry in a transaction of its own
 * after the code host answered. A refusal is an answer, not an error: what the procedure committed
 * before dispatching stays, and an engine already running there still finds it by polling.
 */
export async function dispatchEngineWork(ctx: OrgContext, work: EngineWork) {
  const { envId, repository, ref, workflow } = work;
  const request = { orgId: ctx.org.id, repository, workflow, ref, inputs: { command: work.command, env_id: envId, ...work.inputs } };
  const attempt = await attemptDispatch(ctx.transaction, ctx.config.codehost, request);
  const record = await ctx.transaction(async (tx) => {
    const recorded = await recordDispatch(tx, request, attempt);
    await appendAudit(tx, {
      orgId: ctx.org.id,
      ...ctx.actor,
      action: "workflow.dispatch_attempted",
      target: envId,
      data: { procedure: work.procedure, repository, workflow, ref, command: work.command, dispatchId: recorded.id, outcome: recorded.outcome },
    });
    return recorded;
  });
  return { ...record, repository, workflow, ref };
}

export type DispatchAnswer = Awaited<ReturnType<typeof dispatchEngineWork>>;
