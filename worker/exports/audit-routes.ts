// GET /console/api/audit/export?orgId=: the whole audit log as a download (NDJSON, the chain head on
// the last line), for a person whose role holds audit.export. Verify it offline with
// `svc audit verify <file>`.
import { eq } from "drizzle-orm";
import type { Hono } from "hono";
import { organizations } from "../../db/schema/organizations";
import * as z from "zod";
import type { AppEnv } from "../http/context";
import { asSessionMember } from "../sessions";
import { validateForSession } from "../sessions";
import { streamAuditExport } from "../audit";
import { planGate } from "../http/plan-gate";

const ExportQuery = z.object({ orgId: z.uuid().describe("The organization whose audit log is exported.") });

export function registerAuditExport(app: Hono<AppEnv>): void {
  // Leaving cleanly: the audit log goes with the organization's other exits.
  app.get("/console/api/audit/export", planGate("reachable"), async (c) => {
    const { orgId } = await validateForSession(c, ExportQuery, c.req.query());
    const slug = await asSessionMember(
      c,
      orgId,
      "audit.export",
      async (tx) => (await tx.select({ slug: organizations.slug }).from(organizations).where(eq(organizations.id, orgId)))[0]!.slug,
    );
    return new Response(streamAuditExport(c.var.database().connect, orgId), {
      headers: {
        "content-type": "application/x-ndjson; charset=utf-8",
        "content-disposition": `attachment; filename="audit-${slug}-${new Date().toISOString().slice(0, 10)}.ndjson"`,
      },
    });
  });
}
