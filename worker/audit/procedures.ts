// audit.list (audit.read) and audit.verify (audit.export): the organization's audit log and a check
// of its hash chain.
import { and, desc, eq, lt } from "drizzle-orm";
import { auditLog } from "../../db/schema/audit";
import * as z from "zod";
import { storable } from "../http/text";
import { VERIFY_BATCH, verifyChain } from "./verify";
import { inOrganization, router } from "../trpc/builder";
import type { Tx } from "../../db/transaction";
import { decodeCursor, KeySeq, Paging, pageOf } from "../http/paging";

/** A page of the organization's audit entries, newest first, before `after`'s seq (its primary key). */
export const auditPage = (tx: Tx, orgId: string, after: readonly [number] | null, limit: number) =>
  tx
    .select({
      seq: auditLog.seq,
      action: auditLog.action,
      actorLabel: auditLog.actorLabel,
      target: auditLog.target,
      data: auditLog.data,
      createdAt: auditLog.createdAt,
    })
    .from(auditLog)
    .where(and(eq(auditLog.orgId, orgId), after === null ? undefined : lt(auditLog.seq, after[0])))
    .orderBy(desc(auditLog.seq))
    .limit(limit);

const list = inOrganization
  .meta({ permission: "audit.read", gate: "gated", summary: "Audit entries, newest first (paged)" })
  .input(z.object({ ...Paging }))
  .query(({ ctx, input }) =>
    ctx.transaction(async (tx) =>
      pageOf(
        await auditPage(tx, ctx.org.id, decodeCursor(input.cursor, [KeySeq]), input.limit + 1),
        input.limit,
        (row) => [row.seq],
        (row) => ({ seq: row.seq, action: row.action, actor: row.actorLabel, target: row.target, data: row.data, at: row.createdAt.toISOString() }),
      ),
    ),
  );

const verify = inOrganization
  .meta({
    permission: "audit.export",
    gate: "gated",
    summary: "Verify the audit log's hash chain, up to `limit` entries a call; call again with `after` set to `next` until `next` is null",
  })
  .input(
    z.object({
      after: z
        .object({ seq: z.int().min(1), hash: storable(z.string().regex(/^[0-9a-f]{64}$/)) })
        .optional()
        .describe("The previous call's `next`: the last entry it checked and its hash, which the chain must continue."),
      limit: z.int().min(1).max(VERIFY_BATCH).default(VERIFY_BATCH),
    }),
  )
  .query(({ ctx, input }) => ctx.transaction((tx) => verifyChain(tx, ctx.org.id, input.after ?? null, input.limit)));

export const auditRouter = router({ list, verify });
