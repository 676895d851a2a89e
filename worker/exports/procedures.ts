// exports.create and exports.list (data.export): the data export document, written into the exports
// bucket as a stream and downloaded from GET /console/api/exports/{exportId}?orgId=.
import { exportForPerson } from "./store";
import { inOrganization, router, type OrgContext } from "../rpc/trpc";
import { Refusal } from "../http/refusal";

export const downloadPath = (orgId: string, exportId: string) => `/console/api/exports/${exportId}?orgId=${orgId}`;

function bucketOf(ctx: OrgContext): R2Bucket {
  if (!ctx.env.EXPORTS) throw new Refusal("not_configured", "This installation has no export storage (the EXPORTS bucket binding); the operator adds it.");
  return ctx.env.EXPORTS;
}

const create = inOrganization
  .meta({ permission: "data.export", gate: "reachable", summary: "Take a copy of the organization's configuration and history: the data export document" })
  .mutation(async ({ ctx }) => {
    const bucket = bucketOf(ctx);
    // The document reads page by page in transactions of its own.
    const stored = await exportForPerson(ctx.connect, bucket, ctx.org.id, ctx.actor.actorPersonId);
    return { id: stored.id, sizeBytes: stored.sizeBytes, download: downloadPath(ctx.org.id, stored.id) };
  });

const list = inOrganization.meta({ permission: "data.export", gate: "reachable", summary: "Data exports taken, newest first" }).query(({ ctx }) =>
  ctx.transaction(async (tx) => {
    const { rows } = await tx.sql.query<{ id: string; size_bytes: string | null; login: string | null; created_at: Date; completed_at: Date | null }>(
      `SELECT e.id, e.size_bytes, p.login, e.created_at, e.completed_at FROM data_exports e LEFT JOIN people p ON p.id = e.requested_by
       WHERE e.org_id = $1 ORDER BY e.created_at DESC LIMIT 50`,
      [ctx.org.id],
    );
    return rows.map((row) => ({
      id: row.id,
      sizeBytes: row.size_bytes === null ? null : Number(row.size_bytes),
      requestedBy: row.login,
      createdAt: row.created_at.toISOString(),
      /** Null: the export did not finish (try again). */
      completedAt: row.completed_at?.toISOString() ?? null,
      download: row.completed_at ? downloadPath(ctx.org.id, row.id) : null,
    }));
  }),
);

export const exportsRouter = router({ create, list });
