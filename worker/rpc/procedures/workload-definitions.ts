// workloads.list (workloads.view) and workloads.define (workloads.edit): workload definitions and
// their versions, in the compiled form an engine runs. Joined with workloads.start in one router.
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { CompiledWorkload } from "../../workloads/schemas";
import { DisplayName } from "../../http/text";
import { isUniqueViolation } from "../../../db/errors";
import { appendAudit } from "../../audit/append";
import { defineWorkload } from "../../workloads/requests";
import { inOrganization } from "../trpc";

const list = inOrganization
  .meta({ permission: "workloads.view", summary: "Workload definitions with their latest version" })
  .query(async ({ ctx }) => {
    const { rows } = await ctx.tx.sql.query<{ id: string; name: string; created_at: Date; version_id: string; number: number }>(
      `SELECT DISTINCT ON (w.id) w.id, w.name, w.created_at, v.id AS version_id, v.number
       FROM workloads w JOIN workload_versions v ON v.workload_id = w.id
       WHERE w.org_id = $1 AND w.archived_at IS NULL ORDER BY w.id, v.number DESC`,
      [ctx.org.id],
    );
    return rows
      .map((row) => ({ id: row.id, name: row.name, createdAt: row.created_at.toISOString(), latestVersion: { id: row.version_id, number: row.number } }))
      .sort((a, b) => a.name.localeCompare(b.name));
  });

const define = inOrganization
  .meta({ permission: "workloads.edit", summary: "Create a workload with its first version (the compiled form an engine runs)" })
  .input(z.object({ name: DisplayName, compiled: CompiledWorkload }))
  .mutation(async ({ ctx, input }) => {
    const { tx } = ctx;
    const created = await defineWorkload(tx, ctx.org.id, input.name, input.compiled).catch((error: unknown) => {
      if (isUniqueViolation(error)) throw new TRPCError({ code: "CONFLICT", message: `A workload named ${input.name} already exists.` });
      throw error;
    });
    await appendAudit(tx, { orgId: ctx.org.id, ...ctx.actor, action: "workload.defined", target: input.name, data: { versionId: created.versionId } });
    return created;
  });

export const workloadDefinitions = { list, define };
