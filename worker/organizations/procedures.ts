// organization.get and organization.settings.
import * as z from "zod";
import { DisplayName } from "../http/text";
import { appendAudit } from "../audit/append";
import { inOrganization, router } from "../rpc/trpc";

const get = inOrganization
  // Reachable: what someone needs to find their way to billing (which organization this is, their role in it).
  .meta({ permission: null, gate: "reachable", summary: "The organization: slug, display name, plan, suspension" })
  .query(({ ctx }) =>
    ctx.transaction(async (tx) => {
      const { rows } = await tx.sql.query<{ id: string; slug: string; name: string; plan: string; suspended: boolean; created_at: Date }>(
        "SELECT id, slug, name, plan, suspended_at IS NOT NULL AS suspended, created_at FROM organizations WHERE id = $1",
        [ctx.org.id],
      );
      const org = rows[0]!;
      return {
        id: org.id,
        slug: org.slug,
        name: org.name,
        plan: org.plan,
        suspended: org.suspended,
        createdAt: org.created_at.toISOString(),
        role: ctx.org.role,
      };
    }),
  );

const settings = inOrganization
  .meta({ permission: "organization.settings", gate: "gated", summary: "Change the display name" })
  .input(z.object({ name: DisplayName }))
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const { rows } = await tx.sql.query<{ old: string }>(
        "UPDATE organizations o SET name = $2 FROM (SELECT name AS old FROM organizations WHERE id = $1) before WHERE o.id = $1 RETURNING before.old",
        [ctx.org.id, input.name],
      );
      await appendAudit(tx, { orgId: ctx.org.id, ...ctx.actor, action: "organization.renamed", data: { from: rows[0]!.old, to: input.name } });
      return { name: input.name };
    }),
  );

export const organizationRouter = router({ get, settings });
