// workloads.runs (workloads.view): workload runs, newest first, with who holds them and, for an
// abandoned run, which silence ended it (spec: Workload run). Never the lease id an engine fences with.
import { and, desc, eq, sql } from "drizzle-orm";
import * as z from "zod";
import { workloadRuns as runsTable, workloads, workloadVersions } from "../../db/schema/workloads";
import { inOrganization } from "../trpc/builder";
import { EnvIdInput } from "../environments";
import type { Tx } from "../../db/transaction";
import { decodeCursor, KeyTime, KeyUuid, keyset, Paging, pageOf } from "../http/paging";

/** Whether an engine holds the run's lease right now. */
const HELD = sql<boolean>`${runsTable.state} = 'accepted' AND ${runsTable.leaseExpiresAt} > now()`;

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** A list page's key: when the run was requested, then its id (indexes workload_runs_requested, workload_runs_env_requested). */
const RunKey = [KeyTime, KeyUuid] as const;

/** A page of workload runs (of one environment, or all), newest first, after `after`'s key. */
export const workloadRunsPage = (tx: Tx, orgId: string, envId: string | undefined, after: readonly [string, string] | null, limit: number) =>
  tx
    .select({
      id: runsTable.id,
      envId: runsTable.envId,
      workload: workloads.name,
      version: workloadVersions.number,
      state: runsTable.state,
      requestedAt: runsTable.requestedAt,
      // To the microsecond, for the cursor (a JS Date keeps milliseconds).
      keyAt: sql<string>`${runsTable.requestedAt}::text`,
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
        eq(runsTable.orgId, orgId),
        envId === undefined ? undefined : eq(runsTable.envId, envId),
        keyset([sql`${runsTable.requestedAt}`, sql`${runsTable.id}`], after, "desc"),
      ),
    )
    .orderBy(desc(runsTable.requestedAt), desc(runsTable.id))
    .limit(limit);

const runs = inOrganization
  .meta({ permission: "workloads.view", gate: "gated", summary: "Workload runs, newest first: state, lease, deadline, abandon reason (paged)" })
  .input(z.object({ envId: EnvIdInput.optional().describe("Only this environment's runs."), ...Paging }))
  .query(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const rows = await workloadRunsPage(tx, ctx.org.id, input.envId, decodeCursor(input.cursor, RunKey), input.limit + 1);
      return pageOf(
        rows,
        input.limit,
        (row) => [row.keyAt, row.id],
        (row) => ({
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
        }),
      );
    }),
  );

export const workloadRuns = { runs };
