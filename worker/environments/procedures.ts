// environments.list, .get (environments.view), .create (environments.create), .teardown
// (environments.teardown). Environment rows come only from the engine's events (spec: Environment
// rule 2): create chooses an envId and asks the code host to start the engine with it; the row
// appears when the engine reports. Teardown is a durable command plus the engine's down workflow (rule 4).
import * as z from "zod";
import { ENVIRONMENT_STATES } from "../../db/enums";
import { Refusal } from "../http/refusal";
import { text } from "../http/text";
import { appendAudit } from "../audit";
import { RepositoryName } from "../http/repository-name";
import { enqueueCommand } from "../commands";
import { listEnvironments } from "./read";
import { Paging } from "../http/paging";
import { inOrganization, router } from "../trpc/builder";
import { dispatchEngineWork, EnvIdInput, environmentOf, refuseWhileSuspended, STANDARD_WORKFLOW, WorkflowFile } from "./engine-work";

const list = inOrganization
  .meta({
    permission: "environments.view",
    gate: "gated",
    summary: "Environments, most recently heard from first: state, branch, pull request, expiry, teardown (paged; narrowed by state and by text)",
  })
  .input(
    z.object({
      ...Paging,
      state: z.enum(ENVIRONMENT_STATES).optional().describe("Only environments in this state."),
      search: text({ min: 1, max: 200 }).optional().describe("Only environments whose envId, repository or branch contains this text (case ignored)."),
    }),
  )
  .query(({ ctx, input }) =>
    ctx.transaction((tx) => listEnvironments(tx, ctx.org.id, input.cursor, input.limit, { state: input.state, search: input.search })),
  );

const get = inOrganization
  .meta({ permission: "environments.view", gate: "gated", summary: "One environment: state, branch, pull request, expiry, teardown" })
  .input(z.object({ envId: EnvIdInput }))
  .query(({ ctx, input }) => ctx.transaction((tx) => environmentOf(tx, ctx.org.id, input.envId)));

/** Readable and never reused: the pull request or the branch, then a random part, since a reused envId would carry the old row's sequence. */
function newEnvId(branch: string, pullRequest: number | undefined): string {
  const readable = pullRequest
    ? `pr-${pullRequest}`
    : branch
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-+|-+$/g, "")
        .slice(0, 40) || "env";
  return `${readable}-${crypto.randomUUID().slice(0, 8)}`;
}

const create = inOrganization
  .meta({
    permission: "environments.create",
    live: "environments",
    gate: "gated",
    summary: "Bring an environment up for a branch or pull request: dispatches the workflow with a new envId",
  })
  .input(
    z.object({
      repository: RepositoryName.describe("`owner/name`, a repository where the organization's App is installed."),
      // Git refuses control characters and spaces in branch names; 255 is the code host's limit.
      branch: text({ min: 1, max: 255 })
        .regex(/^[^\s\x00-\x1f\x7f~^:?*[\\]+$/, "must be a branch name")
        .describe("The branch the workflow runs on."),
      pullRequest: z.int().min(1).optional(),
      workflow: WorkflowFile,
    }),
  )
  .mutation(async ({ ctx, input }) => {
    await ctx.transaction((tx) => refuseWhileSuspended(tx, ctx.org.id));
    const envId = newEnvId(input.branch, input.pullRequest);
    const dispatch = await dispatchEngineWork(ctx, {
      procedure: "environments.create",
      envId,
      repository: input.repository,
      ref: input.branch,
      workflow: input.workflow,
      command: "up",
      inputs: { branch: input.branch, ...(input.pullRequest ? { pull_request: String(input.pullRequest) } : {}) },
    });
    return { envId, dispatch };
  });

const teardown = inOrganization
  .meta({
    permission: "environments.teardown",
    live: "environments",
    gate: "gated",
    summary: "Tear an environment down: a durable teardown command, and the engine's down workflow",
  })
  .input(z.object({ envId: EnvIdInput }))
  .mutation(async ({ ctx, input }) => {
    const { environment, commandId } = await ctx.transaction(async (tx) => {
      const environment = await environmentOf(tx, ctx.org.id, input.envId);
      if (environment.state === "torn_down") throw new Refusal("state_conflict", `Environment ${input.envId} is already torn down.`);
      const commandId = await enqueueCommand(tx, ctx.org.id, { envId: input.envId, kind: "teardown" });
      await appendAudit(tx, { orgId: ctx.org.id, ...ctx.actor, action: "environment.teardown_requested", target: input.envId, data: { commandId } });
      return { environment, commandId };
    });
    // The command is what counts, committed before anything is dispatched: an engine polling for commands
    // finds it even when no workflow can be started, which is the case for an environment whose events never named a branch.
    const { branch } = environment;
    const dispatch =
      branch === null
        ? null
        : await dispatchEngineWork(ctx, {
            procedure: "environments.teardown",
            envId: input.envId,
            repository: environment.repository,
            ref: branch,
            workflow: STANDARD_WORKFLOW,
            command: "down",
          });
    return { envId: input.envId, commandId, dispatch };
  });

export const environmentsRouter = router({ list, get, create, teardown });
