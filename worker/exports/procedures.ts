// exports.create and exports.list (data.export): the data export document, written into the exports
// bucket as a stream and downloaded from GET /console/api/exports/{exportId}?orgId=.
import { desc, eq } from "drizzle-orm";
import { dataExports } from "../../db/schema/exports";
import { people } from "../../db/schema/people";
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
    const rows = await tx
      .select({
        id: dataExports.id,
        sizeBytes: dataExports.sizeBytes,
        login: people.login,
        createdAt: dataExports.createdAt,
        completedAt: dataExports.completedAt,
      })
      .from(dataExports)
      .leftJoin(people, eq(people.id, dataExports.requestedBy))
      .where(eq(dataExports.orgId, ctx.org.id))
      .orderBy(desc(dataExports.createdAt))
      .limit(50);
    return rows.map((row) => ({
      id: row.id,
      sizeBytes: row.sizeBytes,
      requestedBy: row.login,
      createdAt: row.createdAt.toISOString(),
      /** Null: the export did not finish (try again). */
      completedAt: row.completedAt?.toISOString() ?? null,
      download: row.completedAt ? downloadPath(ctx.org.id, row.id) : null,
    }));
  }),
);

export const exportsRouter = router({ create, list });
