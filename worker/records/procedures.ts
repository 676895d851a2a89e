// runs.list, runs.get, decisions.list and checks.history (environments.view): the engine records a person reads,
// projected from the engine's events (worker/records). Another organization's run answers NOT_FOUND.
import * as z from "zod";
import { Refusal } from "../http/refusal";
import { EngineRunId, RUN_OUTCOMES } from "./payloads";
import { findRun, listDecisions, listRuns } from "./read";
import { checksAcrossEnvironments } from "./checks";
import { inOrganization, router } from "../trpc/builder";
import { EnvIdInput } from "../environments";
import { Paging } from "../http/paging";

const list = inOrganization
  .meta({
    permission: "environments.view",
    gate: "gated",
    summary: "Runs of an environment, newest first: outcome, timings, runtime, verdict counts; only those still running or of one outcome on request (paged)",
  })
  .input(
    z.object({
      envId: EnvIdInput,
      show: z
        .enum(["running", ...RUN_OUTCOMES])
        .optional()
        .describe("Only the runs still running, or only those that ended with this outcome."),
      ...Paging,
    }),
  )
  .query(({ ctx, input }) => ctx.transaction((tx) => listRuns(tx, ctx.org.id, input.envId, input.cursor, input.limit, input.show ?? null)));

const get = inOrganization
  .meta({ permission: "environments.view", gate: "gated", summary: "One run with its verdicts, artifacts (metadata only) and the goldens it published" })
  .input(z.object({ runId: EngineRunId }))
  .query(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const run = await findRun(tx, ctx.org.id, input.runId);
      if (!run) throw new Refusal("not_found", "No such run in this organization.");
      return run;
    }),
  );

const decisions = inOrganization
  .meta({
    permission: "environments.view",
    gate: "gated",
    summary: "Network (egress) decisions of an environment, newest first, optionally only allowed or denied (paged)",
  })
  .input(z.object({ envId: EnvIdInput, decision: z.enum(["allowed", "denied"]).optional(), ...Paging }))
  .query(({ ctx, input }) => ctx.transaction((tx) => listDecisions(tx, ctx.org.id, input.envId, input.decision ?? null, input.cursor, input.limit)));

const history = inOrganization
  .meta({
    permission: "environments.view",
    gate: "gated",
    summary: "Each check that failed in the last days (7 by default, at most 30), with the environments it failed and passed on",
  })
  .input(z.object({ days: z.int().min(1).max(30).default(7) }))
  .query(({ ctx, input }) => ctx.transaction((tx) => checksAcrossEnvironments(tx, ctx.org.id, input.days)));

export const runsRouter = router({ list, get });
export const checksRouter = router({ history });
export const decisionsRouter = router({ list: decisions });
