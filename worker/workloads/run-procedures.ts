// workloads.runs (workloads.view): workload runs, newest first, with who holds them and, for an
// abandoned run, which silence ended it (spec: Workload run). Never the lease id an engine fences with.
import { and, desc, eq, sql } from "drizzle-orm";
import * as z from "zod";
import { workloadRuns as runsTable, workloads, workloadVersions } from "../../db/schema/workloads";
import { inOrganization } from "../rpc/trpc";
import { EnvId } from "../environments/engine-work";

/** Whether an engine holds the run's lease right now. */
const HELD = sql<boolean>`${runsTable.state} = 'accepted' AND ${runsTable.leaseExpiresAt} > now()`;

const iso = (date: Date | null) => date?.toISOString() ?? null;

const runs = inOrganization
  .meta({ permission: "workloads.view", gate: "gated", summary: "Workload runs, newest first: state, lease, deadline, abandon reason" })
  .input(
    z.object({
      envId: EnvId.optional().describe("Only this environment's runs."),
      before: z.iso.datetime().optional().describe("Runs requested before this time (paging: the last run's requestedAt)."),
      limit: z.int().min(1).max(200).default(50),
    }),
  )
  .query(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const rows = await tx
        .select({
          id: runsTable.id,
          envId: runsTable.envId,
          workload: workloads.name,
          version: workloadVersions.number,
          state: runsTable.state,
          requestedAt: runsTable.requestedAt,
          deadlineAt: runsTable.deadlineAt,
          leaseExpiresAt: runsTable.leaseExpiresAt,
          held: HELD,
          claims: runsTable.claims,
          abandonReason: runsTable.abandonReason,
          endedAt: runsTable.endedAt,
        })
        .from(runsTable)
        .innerJoin(workloads, eq(workloads.id, runsTable.workloadId))
        .innerJoin(workloadVersions, eq(workloadVersions.id, runsTable.versionId))
        .where(
          and(
            eq(runsTable.orgId, ctx.org.id),
            input.envId === undefined ? undefined : eq(runsTable.envId, input.envId),
            // Read by PostgreSQL to the microsecond (a JS Date would keep milliseconds).
            input.before === undefined ? undefined : sql`${runsTable.requestedAt} < ${input.before}::timestamptz`,
          ),
        )
        .orderBy(desc(runsTable.requestedAt), runsTable.id)
        .limit(input.limit);
      return rows.map((row) => ({
        id: row.id,
        envId: row.envId,
        workload: row.workload,
        version: row.version,
        state: row.state,
        requestedAt: row.requestedAt.toISOString(),
        deadline: row.deadlineAt.toISOString(),
        /** Whether an engine holds the run's lease right now, and until when. */
        lease: { held: row.held, expiresAt: iso(row.leaseExpiresAt) },
        claims: row.claims,
        abandonReason: row.abandonReason,
        endedAt: iso(row.endedAt),
      }));
    }),
  );

export const workloadRuns = { runs };
