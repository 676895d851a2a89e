// tokens.list, tokens.create, tokens.revoke (tokens.manage): the organization's engine and CLI
// tokens. A new token is shown once; a list never shows a value or a hash.
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { inTenant } from "../../../db/transaction";
import { appendAudit } from "../../audit/append";
import { issueToken } from "../../tokens/issue";
import { inOrganization, router } from "../trpc";
import { actorOf } from "./actor";

const list = inOrganization
  .meta({ permission: "tokens.manage", summary: "Engine and CLI tokens: prefix, scopes, last use; never the value" })
  .query(({ ctx }) =>
    inTenant(ctx.connect, ctx.org.id, async (tx) => {
      const { rows } = await tx.sql.query<{
        id: string; kind: string; name: string; display_prefix: string; scopes: string[]; created_at: Date;
        last_used_at: Date | null; expires_at: Date | null; revoked_at: Date | null; binding_id: string | null;
      }>(
        "SELECT id, kind, name, display_prefix, scopes, created_at, last_used_at, expires_at, revoked_at, binding_id FROM tokens WHERE org_id = $1 ORDER BY created_at DESC",
        [ctx.org.id],
      );
      const iso = (date: Date | null) => date?.toISOString() ?? null;
      return rows.map((row) => ({
        id: row.id,
        kind: row.kind,
        name: row.name,
        prefix: row.display_prefix,
        scopes: row.scopes,
        createdAt: row.created_at.toISOString(),
        lastUsedAt: iso(row.last_used_at),
        expiresAt: iso(row.expires_at),
        revokedAt: iso(row.revoked_at),
        fromRepositoryClaim: row.binding_id !== null,
      }));
    }),
  );

const create = inOrganization
  .meta({ permission: "tokens.manage", summary: "Create an engine token, shown once" })
  .input(z.object({ name: z.string().trim().min(1).max(100) }))
  .mutation(async ({ ctx, input }) => {
    const actor = await actorOf(ctx);
    return inTenant(ctx.connect, ctx.org.id, async (tx) => {
      const issued = await issueToken(tx, { orgId: ctx.org.id, kind: "engine", name: input.name, createdBy: actor.actorPersonId });
      await appendAudit(tx, { orgId: ctx.org.id, ...actor, action: "token.created", target: issued.id, data: { kind: "engine", name: input.name } });
      return { id: issued.id, name: input.name, token: issued.token, createdAt: issued.createdAt.toISOString() };
    });
  });

const revoke = inOrganization
  .meta({ permission: "tokens.manage", summary: "Revoke a token" })
  .input(z.object({ tokenId: z.uuid() }))
  .mutation(async ({ ctx, input }) => {
    const actor = await actorOf(ctx);
    return inTenant(ctx.connect, ctx.org.id, async (tx) => {
      const { rows } = await tx.sql.query<{ already: boolean }>(
        `UPDATE tokens t SET revoked_at = COALESCE(t.revoked_at, now()) FROM (SELECT revoked_at IS NOT NULL AS already FROM tokens WHERE id = $1) before
         WHERE t.id = $1 RETURNING before.already`,
        [input.tokenId],
      );
      if (!rows[0]) throw new TRPCError({ code: "NOT_FOUND", message: "No such token in this organization." });
      if (!rows[0].already) await appendAudit(tx, { orgId: ctx.org.id, ...actor, action: "token.revoked", target: input.tokenId });
      return { revoked: true, alreadyRevoked: rows[0].already };
    });
  });

export const tokensRouter = router({ list, create, revoke });
