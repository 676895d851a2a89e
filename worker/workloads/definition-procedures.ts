// workloads.list (workloads.view) and workloads.define (workloads.edit): workload definitions and
// their versions, in the compiled form an engine runs. Joined with workloads.start in one router.
import { sql } from "drizzle-orm";
import * as z from "zod";
import { CompiledWorkload } from "./schemas";
import { Refusal } from "../http/refusal";
import { DisplayName } from "../http/text";
import { isUniqueViolation } from "../../db/errors";
import { appendAudit } from "../audit";
import { defineWorkload } from "./requests";
import { CURRENT_VERSION } from "./lifecycle";
import { inOrganization } from "../trpc/builder";

const list = inOrganization
  .meta({ permission: "workloads.view", gate: "gated", summary: "Workload definitions with their current and latest version (archived ones only when asked)" })
  .input(z.object({ includeArchived: z.boolean().default(false) }))
  .query(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const { rows } = await tx.execute<{
        id: string;
        name: string;
        created_at: Date;
        archived_at: Date | null;
        version_id: string;
        number: number;
        current_id: string;
        current_number: number;
        explorations: number;
      }>(
        sql`SELECT DISTINCT ON (w.id) w.id, w.name, w.created_at, w.archived_at, v.id AS version_id, v.number, c.id AS current_id, c.number AS current_number,
              (SELECT count(*)::int FROM workload_versions e WHERE e.workload_id = w.id AND e.exploratory AND e.promoted_at IS NULL AND e.id <> c.id) AS explorations
       FROM workloads w JOIN workload_versions v ON v.workload_id = w.id JOIN workload_versions c ON c.id = ${CURRENT_VERSION}
       WHERE w.org_id = ${ctx.org.id} AND (${input.includeArchived} OR w.archived_at IS NULL) ORDER BY w.id, v.number DESC`,
      );
      return rows
        .map((row) => ({
          id: row.id,
          name: row.name,
          createdAt: row.created_at.toISOString(),
          archivedAt: row.archived_at?.toISOString() ?? null,
          currentVersion: { id: row.current_id, number: row.current_number },
          latestVersion: { id: row.version_id, number: row.number },
          /** Exploratory versions not promoted (and not current). */
          explorations: row.explorations,
        }))
        .sort((a, b) => a.name.localeCompare(b.name));
    }),
  );

const define = inOrganization
  .meta({
    permission: "workloads.edit",
    live: "workloads",
    gate: "gated",
    summary: "Create a workload with its first version (the compiled form an engine runs)",
  })
  .input(z.object({ name: DisplayName, compiled: CompiledWorkload }))
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const created = await defineWorkload(tx, ctx.org.id, input.name, input.compiled).catch((error: unknown) => {
        if (isUniqueViolation(error)) throw new Refusal("already_exists", `A workload named ${input.name} already exists.`);
        throw error;
      });
      await appendAudit(tx, { orgId: ctx.org.id, ...ctx.actor, action: "workload.defined", target: input.name, data: { versionId: created.versionId } });
      return created;
    }),
  );

export const workloadDefinitions = { list, define };
