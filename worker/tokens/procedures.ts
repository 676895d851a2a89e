// tokens.list, tokens.create, tokens.revoke (tokens.manage): the organization's engine and CLI
// tokens. A new token is shown once; a list never shows a value or a hash. A CLI token is listed with
// its person and the scopes it holds now (its grant narrowed by the person's current role).
import { and, desc, eq, sql } from "drizzle-orm";
import * as z from "zod";
import { memberships } from "../../db/schema/organizations";
import { people } from "../../db/schema/people";
import { tokens } from "../../db/schema/tokens";
import { Refusal } from "../http/refusal";
import { DisplayName } from "../http/text";
import { appendAudit } from "../audit";
import { effectiveScopes } from "../auth";
import { createEngineToken } from "./issue";
import { inOrganization, router } from "../trpc/builder";
import type { Tx } from "../../db/transaction";
import { decodeCursor, KeyTime, KeyUuid, keyset, Paging, pageOf } from "../http/paging";

/** A list page's key: when the token was made, then its id (index tokens_created). */
const TokenKey = [KeyTime, KeyUuid] as const;

/** A page of the organization's tokens, newest first, after `after`'s key. */
export const tokensPage = (tx: Tx, orgId: string, after: readonly [string, string] | null, limit: number) =>
  tx
    .select({
      id: tokens.id,
      kind: tokens.kind,
      name: tokens.name,
      displayPrefix: tokens.displayPrefix,
      scopes: tokens.scopes,
      createdAt: tokens.createdAt,
      keyAt: sql<string>`${tokens.createdAt}::text`,
      lastUsedAt: tokens.lastUsedAt,
      expiresAt: tokens.expiresAt,
      revokedAt: tokens.revokedAt,
      bindingId: tokens.bindingId,
      personId: tokens.personId,
      personLogin: people.login,
      personRole: memberships.role,
    })
    .from(tokens)
    .leftJoin(people, eq(people.id, tokens.personId))
    .leftJoin(memberships, and(eq(memberships.personId, tokens.personId), eq(memberships.orgId, tokens.orgId)))
    .where(and(eq(tokens.orgId, orgId), keyset([sql`${tokens.createdAt}`, sql`${tokens.id}`], after, "desc")))
    .orderBy(desc(tokens.createdAt), desc(tokens.id))
    .limit(limit);

const iso = (date: Date | null) => date?.toISOString() ?? null;

const list = inOrganization
  .meta({ permission: "tokens.manage", gate: "gated", summary: "Engine and CLI tokens, newest first: prefix, scopes, last use; never the value (paged)" })
  .input(z.object({ ...Paging }))
  .query(({ ctx, input }) =>
    ctx.transaction(async (tx) =>
      pageOf(
        await tokensPage(tx, ctx.org.id, decodeCursor(input.cursor, TokenKey), input.limit + 1),
        input.limit,
        (row) => [row.keyAt, row.id],
        (row) => ({
          id: row.id,
          kind: row.kind,
          name: row.name,
          prefix: row.displayPrefix,
          scopes: row.scopes,
          /** What a CLI token may do now; empty once its person is no longer a member. */
          effectiveScopes: row.personRole ? effectiveScopes(row.personRole, row.scopes) : [],
          person: row.personId ? { id: row.personId, login: row.personLogin } : null,
          createdAt: row.createdAt.toISOString(),
          lastUsedAt: iso(row.lastUsedAt),
          expiresAt: iso(row.expiresAt),
          revokedAt: iso(row.revokedAt),
          fromRepositoryClaim: row.bindingId !== null,
        }),
      ),
    ),
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
      const { rows } = await tx.execute<{
        already: boolean;
      }>(sql`UPDATE tokens t SET revoked_at = COALESCE(t.revoked_at, now()) FROM (SELECT revoked_at IS NOT NULL AS already FROM tokens WHERE id = ${input.tokenId}) before
         WHERE t.id = ${input.tokenId} RETURNING before.already`);
      if (!rows[0]) throw new Refusal("not_found", "No such token in this organization.");
      if (!rows[0].already) await appendAudit(tx, { orgId: ctx.org.id, ...ctx.actor, action: "token.revoked", target: input.tokenId });
      return { revoked: true, alreadyRevoked: rows[0].already };
    }),
  );

export const tokensRouter = router({ list, create, revoke });
