// organization.get and organization.settings.
import { eq, sql } from "drizzle-orm";
import * as z from "zod";
import { organizations } from "../../db/schema/organizations";
import { DisplayName } from "../http/text";
import { appendAudit } from "../audit";
import { inOrganization, router } from "../trpc/builder";

const get = inOrganization
  // Reachable: what someone needs to find their way to billing (which organization this is, their role in it).
  .meta({ permission: null, gate: "reachable", summary: "The organization: slug, display name, plan, suspension (since when, by whom, why)" })
  .query(({ ctx }) =>
    ctx.transaction(async (tx) => {
      const [org] = await tx
        .select({
          id: organizations.id,
          slug: organizations.slug,
          name: organizations.name,
          plan: organizations.plan,
          suspendedAt: organizations.suspendedAt,
          suspendedBy: organizations.suspendedReason,
          suspendedBecause: organizations.suspendedBecause,
          createdAt: organizations.createdAt,
        })
        .from(organizations)
        .where(eq(organizations.id, ctx.org.id));
      return {
        id: org!.id,
        slug: org!.slug,
        name: org!.name,
        plan: org!.plan as string,
        suspended: org!.suspendedAt !== null,
        // Every page of the console shows it (a banner): since when, an operator's or a deletion's, and the operator's reason.
        suspension:
          org!.suspendedAt === null
            ? null
            : { since: org!.suspendedAt.toISOString(), by: org!.suspendedBy as "operator" | "deletion" | null, reason: org!.suspendedBecause },
        createdAt: org!.createdAt.toISOString(),
        role: ctx.org.role,
      };
    }),
  );

const settings = inOrganization
  .meta({ permission: "organization.settings", gate: "gated", summary: "Change the display name" })
  .input(z.object({ name: DisplayName }))
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const { rows } = await tx.execute<{ old: string }>(
        sql`UPDATE organizations o SET name = ${input.name} FROM (SELECT name AS old FROM organizations WHERE id = ${ctx.org.id}) before WHERE o.id = ${ctx.org.id} RETURNING before.old`,
      );
      await appendAudit(tx, { orgId: ctx.org.id, ...ctx.actor, action: "organization.renamed", data: { from: rows[0]!.old, to: input.name } });
      return { name: input.name };
    }),
  );

export const organizationRouter = router({ get, settings });
