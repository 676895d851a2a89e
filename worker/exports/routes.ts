// GET /console/api/exports/{exportId}?orgId=: downloads a finished data export document (session,
// data.export), streamed from the exports bucket.
import { and, eq, isNotNull } from "drizzle-orm";
import type { Hono } from "hono";
import { dataExports } from "../../db/schema/exports";
import * as z from "zod";
import type { AppEnv } from "../http/context";
import { Refusal } from "../http/refusal";
import { asSessionMember } from "../sessions";
import { validateForSession } from "../sessions";
import { jsonDownload } from "../storage/r2-sink";
import { planGate } from "../http/plan-gate";

const Download = z.object({ exportId: z.uuid(), orgId: z.uuid() });

export function registerExportDownloads(app: Hono<AppEnv>): void {
  // An exit: the organization's data goes with it, whatever its plan.
  app.get("/console/api/exports/:exportId", planGate("reachable"), async (c) => {
    const { exportId, orgId } = await validateForSession(c, Download, { exportId: c.req.param("exportId"), orgId: c.req.query("orgId") });
    const key = await asSessionMember(
      c,
      orgId,
      "data.export",
      async (tx) =>
        (
          await tx
            .select({ objectKey: dataExports.objectKey })
            .from(dataExports)
            .where(and(eq(dataExports.id, exportId), isNotNull(dataExports.completedAt)))
        )[0]?.objectKey,
    );
    const object = key ? await c.env.EXPORTS?.get(key) : null;
    if (!object) throw new Refusal("not_found", "No finished export with that id in this organization.");
    return jsonDownload(object, `data-export-${exportId}.json`);
  });
}
