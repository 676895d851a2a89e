// The workload lifecycle (spec: workloads.edit, workloads.run): workloads.get, .addVersion, .archive,
// .promote; runs: workloads.getRun (workloads.view), .cancelRun and .retryRun (workloads.run).
// Joined into the workloads router in runs.ts. Every change is audited.
import * as z from "zod";
import { Refusal } from "../http/refusal";
import { appendAudit } from "../audit";
import { addVersion, archiveWorkload, cancelRun, findVersion, findWorkload, findWorkloadRun, promoteVersion, workloadDetail } from "./lifecycle";
import { CompiledWorkload } from "./schemas";
import { inOrganization } from "../trpc/builder";
import { WorkflowFile } from "../environments";
import { startWorkloadRun } from "./procedures";
import type { Tx } from "../../db/transaction";

const noWorkload = () => new Refusal("not_found", "No such workload in this organization.");
const noRun = () => new Refusal("not_found", "No such workload run in this organization.");

async function liveWorkload(tx: Tx, orgId: string, workloadId: string) {
  const workload = await findWorkload(tx, orgId, workloadId, true);
  if (!workload) throw noWorkload();
  if (workload.archived_at) throw new Refusal("state_conflict", `Workload ${workload.name} is archived; it takes no new versions and no promotions.`);
  return workload;
}

const get = inOrganization
  .meta({ permission: "workloads.view", gate: "gated", summary: "One workload with every version (current, exploratory, promoted) and whether it is archived" })
  .input(z.object({ workloadId: z.uuid() }))
  .query(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const workload = await workloadDetail(tx, ctx.org.id, input.workloadId);
      if (!workload) throw noWorkload();
      return workload;
    }),
  );

const addVersionProcedure = inOrganization
  .meta({
    permission: "workloads.edit",
    live: "workloads",
    gate: "gated",
    summary: "Add a version to a workload: the current one, or an exploration that stays aside until promoted",
  })
  .input(
    z.object({
      workloadId: z.uuid(),
      compiled: CompiledWorkload,
      exploratory: z.boolean().default(false).describe("An exploration: runnable by its id, not current until promoted."),
    }),
  )
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const workload = await liveWorkload(tx, ctx.org.id, input.workloadId);
      const version = await addVersion(tx, ctx.org.id, workload.id, input.compiled, input.exploratory);
      await appendAudit(tx, {
        orgId: ctx.org.id,
        ...ctx.actor,
        action: "workload.version_added",
        target: workload.name,
        data: { versionId: version.id, number: version.number, exploratory: input.exploratory },
      });
      return { workloadId: workload.id, versionId: version.id, number: version.number, exploratory: input.exploratory, current: !input.exploratory };
    }),
  );

const archive = inOrganization
  .meta({
    permission: "workloads.edit",
    live: "workloads",
    gate: "gated",
    summary: "Archive a workload: it starts no new runs; its versions and runs stay readable",
  })
  .input(z.object({ workloadId: z.uuid() }))
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const workload = await findWorkload(tx, ctx.org.id, input.workloadId, true);
      if (!workload) throw noWorkload();
      if (workload.archived_at) return { workloadId: workload.id, archivedAt: workload.archived_at.toISOString(), alreadyArchived: true };
      const archivedAt = await archiveWorkload(tx, ctx.org.id, workload.id);
      await appendAudit(tx, { orgId: ctx.org.id, ...ctx.actor, action: "workload.archived", target: workload.name, data: { workloadId: workload.id } });
      return { workloadId: workload.id, archivedAt: archivedAt.toISOString(), alreadyArchived: false };
    }),
  );

const promote = inOrganization
  .meta({
    permission: "workloads.edit",
    live: "workloads",
    gate: "gated",
    summary: "Promote an exploration: the exploratory version becomes the workload's current one",
  })
  .input(z.object({ versionId: z.uuid() }))
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const version = await findVersion(tx, ctx.org.id, input.versionId);
      if (!version) throw new Refusal("not_found", "No such workload version in this organization.");
      const workload = await liveWorkload(tx, ctx.org.id, version.workloadId);
      if (!version.exploratory)
        throw new Refusal("state_conflict", `Version ${version.number} of ${workload.name} is not an exploration; only an exploratory version is promoted.`);
      if (workload.current_version_id === version.id)
        throw new Refusal("state_conflict", `Version ${version.number} of ${workload.name} is not an exploration; only an exploratory version is promoted.`);
      await promoteVersion(tx, ctx.org.id, workload.id, version.id);
      await appendAudit(tx, {
        orgId: ctx.org.id,
        ...ctx.actor,
        action: "workload.promoted",
        target: workload.name,
        data: { versionId: version.id, number: version.number, previousVersionId: workload.current_version_id },
      });
      return { workloadId: workload.id, currentVersionId: version.id, number: version.number };
    }),
  );

const getRun = inOrganization
  .meta({ permission: "workloads.view", gate: "gated", summary: "One workload run: state, attempts, abandon reason, cancellation, the run it retries" })
  .input(z.object({ runId: z.uuid() }))
  .query(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const run = await findWorkloadRun(tx, ctx.org.id, input.runId);
      if (!run) throw noRun();
      return run;
    }),
  );

const cancel = inOrganization
  .meta({
    permission: "workloads.run",
    live: "workloads",
    gate: "gated",
    summary: "Cancel a workload run: a requested run ends at once; an accepted one gets a cancel command its engine claims",
  })
  .input(z.object({ runId: z.uuid() }))
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const result = await cancelRun(tx, ctx.org.id, input.runId);
      if (result.kind === "missing") throw noRun();
      if (result.kind === "ended") throw new Refusal("state_conflict", `The run is already ${result.state}; there is nothing to cancel.`);
      if (result.kind === "cancelled") {
        await appendAudit(tx, { orgId: ctx.org.id, ...ctx.actor, action: "workload_run.cancelled", target: input.runId, data: {} });
        return { runId: input.runId, state: "cancelled" as const, commandId: null };
      }
      if (!result.existing) {
        await appendAudit(tx, {
          orgId: ctx.org.id,
          ...ctx.actor,
          action: "workload_run.cancel_requested",
          target: input.runId,
          data: { commandId: result.commandId },
        });
      }
      // The engine holding the run claims the command, stops, and sends workload.cancelled, which ends the run.
      return { runId: input.runId, state: "accepted" as const, commandId: result.commandId };
    }),
  );

const retry = inOrganization
  .meta({
    permission: "workloads.run",
    live: "workloads",
    gate: "gated",
    summary: "Retry an ended workload run: a new run of the same version on the same environment",
  })
  .input(z.object({ runId: z.uuid(), workflow: WorkflowFile }))
  .mutation(async ({ ctx, input }) => {
    const run = await ctx.transaction(async (tx) => {
      const run = await findWorkloadRun(tx, ctx.org.id, input.runId);
      if (!run) throw noRun();
      if (run.state === "requested" || run.state === "accepted") {
        throw new Refusal("state_conflict", `The run is still ${run.state}; retry it once it has ended, or cancel it first.`);
      }
      return run;
    });
    const started = await startWorkloadRun(ctx, { envId: run.envId, versionId: run.version.id, workflow: input.workflow, retryOf: run.id });
    return { ...started, retryOf: run.id };
  });

export const workloadLifecycle = { get, addVersion: addVersionProcedure, archive, promote, getRun, cancelRun: cancel, retryRun: retry };
