// audit.list (audit.read) and audit.verify (audit.export): the organization's audit log and a check
// of its hash chain.
import * as z from "zod";
import { verifyChain } from "./verify";
import { inOrganization, router } from "../rpc/trpc";

const list = inOrganization
  .meta({ permission: "audit.read", gate: "gated", summary: "Audit entries, newest first" })
  .input(z.object({ before: z.int().min(1).optional().describe("Entries before this sequence number (paging)."), limit: z.int().min(1).max(200).default(50) }))
  .query(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const { rows } = await tx.sql.query<{ seq: string; action: string; actor_label: string; target: string | null; data: unknown; created_at: Date }>(
        `SELECT seq, action, actor_label, target, data, created_at FROM audit_log
       WHERE org_id = $1 AND ($2::bigint IS NULL OR seq < $2) ORDER BY seq DESC LIMIT $3`,
        [ctx.org.id, input.before ?? null, input.limit],
      );
      return rows.map((row) => ({
        seq: Number(row.seq),
        action: row.action,
        actor: row.actor_label,
        target: row.target,
        data: row.data,
        at: row.created_at.toISOString(),
      }));
    }),
  );

const verify = inOrganization
  .meta({ permission: "audit.export", gate: "gated", summary: "Verify the audit log's hash chain" })
  .query(({ ctx }) => ctx.transaction((tx) => verifyChain(tx, ctx.org.id)));

export const auditRouter = router({ list, verify });
