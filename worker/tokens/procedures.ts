// tokens.list, tokens.create, tokens.revoke (tokens.manage): the organization's engine and CLI
// tokens. A new token is shown once; a list never shows a value or a hash. A CLI token is listed with
// its person and the scopes it holds now (its grant narrowed by the person's current role).
import * as z from "zod";
import { Refusal } from "../http/refusal";
import { DisplayName } from "../http/text";
import type { Role } from "../../db/schema/index";
import { appendAudit } from "../audit/append";
import { effectiveScopes } from "../auth/authorize";
import { createEngineToken } from "./issue";
import { inOrganization, router } from "../rpc/trpc";

const list = inOrganization
  .meta({ permission: "tokens.manage", gate: "gated", summary: "Engine and CLI tokens: prefix, scopes, last use; never the value" })
  .query(({ ctx }) =>
    ctx.transaction(async (tx) => {
      const { rows } = await tx.sql.query<{
        id: string;
        kind: string;
        name: string;
        display_prefix: string;
        scopes: string[];
        created_at: Date;
        last_used_at: Date | null;
        expires_at: Date | null;
        revoked_at: Date | null;
        binding_id: string | null;
        person_id: string | null;
        person_login: string | null;
        person_role: Role | null;
      }>(
        `SELECT t.id, t.kind, t.name, t.display_prefix, t.scopes, t.created_at, t.last_used_at, t.expires_at, t.revoked_at, t.binding_id,
              t.person_id, p.login AS person_login, m.role AS person_role
       FROM tokens t LEFT JOIN people p ON p.id = t.person_id LEFT JOIN memberships m ON m.person_id = t.person_id AND m.org_id = t.org_id
       WHERE t.org_id = $1 ORDER BY t.created_at DESC`,
        [ctx.org.id],
      );
      const iso = (date: Date | null) => date?.toISOString() ?? null;
      return rows.map((row) => ({
        id: row.id,
        kind: row.kind,
        name: row.name,
        prefix: row.display_prefix,
        scopes: row.scopes,
        /** What a CLI token may do now; empty once its person is no longer a member. */
        effectiveScopes: row.person_role ? effectiveScopes(row.person_role, row.scopes) : [],
        person: row.person_id ? { id: row.person_id, login: row.person_login } : null,
        createdAt: row.created_at.toISOString(),
        lastUsedAt: iso(row.last_used_at),
        expiresAt: iso(row.expires_at),
        revokedAt: iso(row.revoked_at),
        fromRepositoryClaim: row.binding_id !== null,
      }));
    }),
  );

const create = inOrganization
  .meta({ permission: "tokens.manage", gate: "gated", summary: "Create an engine token, shown once" })
  .input(z.object({ name: DisplayName }))
  .mutation(({ ctx, input }) =>
    ctx.transaction((tx) => createEngineToken(tx, ctx.org.id, input.name, { personId: ctx.actor.actorPersonId, label: ctx.actor.actorLabel })),
  );

const revoke = inOrganization
  .meta({ permission: "tokens.manage", gate: "gated", summary: "Revoke a token" })
  .input(z.object({ tokenId: z.uuid() }))
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const { rows } = await tx.sql.query<{ already: boolean }>(
        `UPDATE tokens t SET revoked_at = COALESCE(t.revoked_at, now()) FROM (SELECT revoked_at IS NOT NULL AS already FROM tokens WHERE id = $1) before
         WHERE t.id = $1 RETURNING before.already`,
        [input.tokenId],
      );
      if (!rows[0]) throw new Refusal("not_found", "No such token in this organization.");
      if (!rows[0].already) await appendAudit(tx, { orgId: ctx.org.id, ...ctx.actor, action: "token.revoked", target: input.tokenId });
      return { revoked: true, alreadyRevoked: rows[0].already };
    }),
  );

export const tokensRouter = router({ list, create, revoke });
