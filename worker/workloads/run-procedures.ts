// workloads.runs (workloads.view): workload runs, newest first, with who holds them and, for an
// abandoned run, which silence ended it (spec: Workload run). Never the lease id an engine fences with.
import * as z from "zod";
import { inOrganization } from "../rpc/trpc";
import { EnvId } from "../environments/engine-work";

interface RunRow {
  id: string;
  env_id: string;
  workload: string;
  version: number;
  state: string;
  requested_at: Date;
  deadline_at: Date;
  lease_expires_at: Date | null;
  held: boolean;
  claims: number;
  abandon_reason: string | null;
  ended_at: Date | null;
}

const RUNS = `
SELECT r.id, r.env_id, w.name AS workload, v.number AS version, r.state, r.requested_at, r.deadline_at,
       r.lease_expires_at, r.state = 'accepted' AND r.lease_expires_at > now() AS held, r.claims, r.abandon_reason, r.ended_at
FROM workload_runs r JOIN workloads w ON w.id = r.workload_id JOIN workload_versions v ON v.id = r.version_id
WHERE r.org_id = $1 AND ($2::text IS NULL OR r.env_id = $2) AND ($3::timestamptz IS NULL OR r.requested_at < $3)
ORDER BY r.requested_at DESC, r.id LIMIT $4`;

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
      const { rows } = await tx.sql.query<RunRow>(RUNS, [ctx.org.id, input.envId ?? null, input.before ?? null, input.limit]);
      return rows.map((row) => ({
        id: row.id,
        envId: row.env_id,
        workload: row.workload,
        version: row.version,
        state: row.state,
        requestedAt: row.requested_at.toISOString(),
        deadline: row.deadline_at.toISOString(),
        /** Whether an engine holds the run's lease right now, and until when. */
        lease: { held: row.held, expiresAt: iso(row.lease_expires_at) },
        claims: row.claims,
        abandonReason: row.abandon_reason,
        endedAt: iso(row.ended_at),
      }));
    }),
  );

export const workloadRuns = { runs };
