// agents.run (agents.run), load.run (load.run) and workloads.start (workloads.run): each asks the
// code host to run the workflow on an environment's branch (spec: Pull model; agents.run's input is
// the spec's exactly). workloads.start records the run first, so it is claimable whatever the code
// host answers.
import { and, eq, sql } from "drizzle-orm";
import * as z from "zod";
import { workloads, workloadVersions } from "../../db/schema/workloads";
import { Refusal } from "../http/refusal";
import { text } from "../http/text";
import { wakeEnvironment } from "./environment-object";
import { appendAudit } from "../audit";
import { requestRun } from "./requests";
import { inOrganization, router, type OrgContext } from "../trpc/builder";
import { dispatchEngineWork, EnvIdInput, workableEnvironment, WorkflowFile } from "../environments";

/** Engine work on an environment that can take it: its repository, on its branch. */
async function dispatchOnEnvironment(ctx: OrgContext, envId: string, work: Omit<Parameters<typeof dispatchEngineWork>[1], "envId" | "repository" | "ref">) {
  const environment = await ctx.transaction((tx) => workableEnvironment(tx, ctx.org.id, envId));
  return dispatchEngineWork(ctx, { ...work, envId, repository: environment.repository, ref: environment.branch });
}

const agentsRun = inOrganization
  .meta({ permission: "agents.run", live: "workloads", gate: "gated", summary: "Start an agent run on an environment" })
  .input(
    z.object({
      envId: EnvIdInput,
      workflows: z
        .array(text({ min: 1, max: 200 }))
        .max(50)
        .optional()
        .describe("The agent workflows to run; all of them when left out."),
      workflow: WorkflowFile,
    }),
  )
  .mutation(async ({ ctx, input }) => ({
    envId: input.envId,
    dispatch: await dispatchOnEnvironment(ctx, input.envId, {
      procedure: "agents.run",
      workflow: input.workflow,
      command: "agents",
      // Workflow inputs are strings; JSON keeps names containing commas or spaces intact.
      ...(input.workflows ? { inputs: { workflows: JSON.stringify(input.workflows) } } : {}),
    }),
  }));

const loadRun = inOrganization
  .meta({ permission: "load.run", live: "workloads", gate: "gated", summary: "Start a load run on an environment" })
  .input(z.object({ envId: EnvIdInput, workflow: WorkflowFile }))
  .mutation(async ({ ctx, input }) => ({
    envId: input.envId,
    dispatch: await dispatchOnEnvironment(ctx, input.envId, { procedure: "load.run", workflow: input.workflow, command: "load" }),
  }));

/**
 * Records a run of a version on an environment for an engine to claim, then dispatches the workflow
 * (workloads.start, and workloads.retryRun with the run it repeats). Refused for an archived workload.
 */
export async function startWorkloadRun(ctx: OrgContext, input: { envId: string; versionId: string; workflow: string; retryOf?: string }) {
  const { environment, run } = await ctx.transaction(async (tx) => {
    const environment = await workableEnvironment(tx, ctx.org.id, input.envId);
    const [version] = await tx
      .select({ name: workloads.name, number: workloadVersions.number, archived: sql<boolean>`${workloads.archivedAt} IS NOT NULL` })
      .from(workloadVersions)
      .innerJoin(workloads, eq(workloads.id, workloadVersions.workloadId))
      .where(and(eq(workloadVersions.orgId, ctx.org.id), eq(workloadVersions.id, input.versionId)));
    if (!version) throw new Refusal("not_found", "No such workload version in this organization.");
    if (version.archived) throw new Refusal("state_conflict", `Workload ${version.name} is archived; it starts no new runs.`);
    const runId = await requestRun(tx, ctx.org.id, input.envId, input.versionId, input.retryOf ?? null);
    await appendAudit(tx, {
      orgId: ctx.org.id,
      ...ctx.actor,
      action: "workload_run.requested",
      target: runId,
      data: { envId: input.envId, workload: version.name, version: version.number, ...(input.retryOf ? { retryOf: input.retryOf } : {}) },
    });
    return { environment, run: { runId, workload: version.name, version: version.number } };
  });
  // Committed first: the environment's object arms its deadline alarm from what it reads (a run
  // nothing claims is abandoned on time), and the engine the workflow starts must find the run.
  await wakeEnvironment(ctx.env, ctx.org.id, input.envId);
  const dispatch = await dispatchEngineWork(ctx, {
    procedure: input.retryOf ? "workloads.retryRun" : "workloads.start",
    envId: input.envId,
    repository: environment.repository,
    ref: environment.branch,
    workflow: input.workflow,
    command: "workload",
    inputs: { run_id: run.runId },
  });
  return { ...run, envId: input.envId, dispatch };
}

const workloadsStart = inOrganization
  .meta({
    permission: "workloads.run",
    live: "workloads",
    gate: "gated",
    summary: "Start a workload run: recorded for the engine to claim, then the workflow is dispatched",
  })
  .input(z.object({ envId: EnvIdInput, versionId: z.uuid().describe("The workload version to run."), workflow: WorkflowFile }))
  .mutation(({ ctx, input }) => startWorkloadRun(ctx, input));

// Three groups of the spec's names, one file: they are the same act on different work. worker/rpc/router.ts
// composes workloads.* from this start and the definitions, runs and lifecycle procedures beside it.
export const agentsRouter = router({ run: agentsRun });
export const loadRouter = router({ run: loadRun });
export const workloadStart = { start: workloadsStart };
