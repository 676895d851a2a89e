// exports.create and exports.list (data.export): the data export document, written into the exports
// bucket as a stream and downloaded from GET /console/api/exports/{exportId}?orgId=.
import { and, desc, eq, sql } from "drizzle-orm";
import * as z from "zod";
import type { Tx } from "../../db/transaction";
import { decodeCursor, KeyTime, KeyUuid, keyset, Paging, pageOf } from "../http/paging";
import { dataExports } from "../../db/schema/exports";
import { people } from "../../db/schema/people";
import { exportForPerson } from "./store";
import { inOrganization, router, type OrgContext } from "../trpc/builder";
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

/** A page of the organization's exports, newest first, after `after`'s key (index data_exports_org). */
export const exportsPage = (tx: Tx, orgId: string, after: readonly [string, string] | null, limit: number) =>
  tx
    .select({
      id: dataExports.id,
      sizeBytes: dataExports.sizeBytes,
      login: people.login,
      createdAt: dataExports.createdAt,
      keyAt: sql<string>`${dataExports.createdAt}::text`,
      completedAt: dataExports.completedAt,
    })
    .from(dataExports)
    .leftJoin(people, eq(people.id, dataExports.requestedBy))
    .where(and(eq(dataExports.orgId, orgId), keyset([sql`${dataExports.createdAt}`, sql`${dataExports.id}`], after, "desc")))
    .orderBy(desc(dataExports.createdAt), desc(dataExports.id))
    .limit(limit);

const list = inOrganization
  .meta({ permission: "data.export", gate: "reachable", summary: "Data exports taken, newest first (paged)" })
  .input(z.object({ ...Paging }))
  .query(({ ctx, input }) =>
    ctx.transaction(async (tx) =>
      pageOf(
        await exportsPage(tx, ctx.org.id, decodeCursor(input.cursor, [KeyTime, KeyUuid]), input.limit + 1),
        input.limit,
        (row) => [row.keyAt, row.id],
        (row) => ({
          id: row.id,
          sizeBytes: row.sizeBytes,
          requestedBy: row.login,
          createdAt: row.createdAt.toISOString(),
          /** Null: the export did not finish (try again). */
          completedAt: row.completedAt?.toISOString() ?? null,
          download: row.completedAt ? downloadPath(ctx.org.id, row.id) : null,
        }),
      ),
    ),
  );

export const exportsRouter = router({ create, list });
