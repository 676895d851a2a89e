// POST /v1/cli/logout: `svc logout` revokes the CLI token it presents (then forgets it); with
// `{ all: true }`, every live CLI token of the same person, in every organization they belong to on
// this service. A suspended organization does not stop a person from signing out. The revocation
// endpoint (RFC 7009, worker/mcp/oauth-routes.ts) revokes a CLI token by its value too.
import { sql } from "drizzle-orm";
import * as z from "zod";
import { actAs, addLookup } from "../../db/acting";
import { inTenant, inTransaction, type Connection, type Tx } from "../../db/transaction";
import { appendAudit } from "../audit";
import { asCliToken } from "../auth";
import { refusal, route, serverFailure } from "../openapi/declaration";
import { personContext } from "../people";

export const CliLogoutRequest = z
  .strictObject({
    all: z.boolean().optional().describe("Revoke every CLI token of the token's person on this service, not only this one."),
  })
  .meta({ id: "CliLogoutRequest" });

export const CliLogout = z
  .strictObject({ revoked: z.int().min(1).describe("How many CLI tokens were revoked (this one included).") })
  .meta({ id: "CliLogout" });

/** Who revokes, as the audit log records it. */
interface Revoker {
  personId: string;
  actorLabel: string;
}

/** Revokes the person's live CLI tokens of the transaction's organization (only `tokenId`, when given), each audited. */
async function revokeCliTokens(tx: Tx, orgId: string, revoker: Revoker, tokenId: string | null, via = "cli logout"): Promise<number> {
  const { rows } = await tx.execute<{ id: string }>(sql`
    UPDATE tokens SET revoked_at = now()
    WHERE org_id = ${orgId} AND kind = 'cli' AND person_id = ${revoker.personId} AND revoked_at IS NULL
      AND (${tokenId}::uuid IS NULL OR id = ${tokenId}::uuid)
    RETURNING id`);
  for (const { id } of rows) {
    await appendAudit(tx, {
      orgId,
      actorPersonId: revoker.personId,
      actorLabel: revoker.actorLabel,
      action: "token.revoked",
      target: id,
      data: { via },
    });
  }
  return rows.length;
}

/** Revokes the live CLI token whose hash is `tokenHash` (RFC 7009: possession is the proof); false when there is none. */
export function revokeCliTokenByHash(connect: () => Promise<Connection>, tokenHash: string): Promise<boolean> {
  return inTransaction(connect, { lookups: { token_hash: tokenHash } }, async (tx) => {
    const { rows } = await tx.execute<{ id: string; org_id: string; person_id: string }>(
      sql`SELECT id, org_id, person_id FROM tokens WHERE token_hash = ${tokenHash} AND kind = 'cli' AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    );
    const token = rows[0];
    if (!token) return false;
    await actAs(tx, token.org_id);
    await addLookup(tx, "person_id", token.person_id);
    const { rows: people } = await tx.execute<{ label: string }>(
      sql`SELECT coalesce(login, email, id::text) AS label FROM people WHERE id = ${token.person_id}`,
    );
    const revoker = { personId: token.person_id, actorLabel: people[0]?.label ?? token.person_id };
    return (await revokeCliTokens(tx, token.org_id, revoker, token.id, "revocation endpoint")) === 1;
  });
}

export const logout = route({
  method: "post",
  path: "/v1/cli/logout",
  operationId: "cliLogout",
  summary: "Revoke this CLI token, or every CLI token of its person (svc logout)",
  description: "CLI token; any scope; also while the organization is suspended. The token stops working at once.",
  tag: "tokens",
  security: ["cliToken"],
  gate: "reachable",
  // Not in /openapi.json: the spec lists the operations it carries, and this is not one of them.
  published: false,
  body: CliLogoutRequest,
  responses: {
    200: { description: "What was revoked", schema: CliLogout },
    401: refusal("Not a valid CLI token (unknown, expired, already revoked, or its person is no longer a member)"),
    500: serverFailure,
  },
  handler: async (c, { body: { all = false }, reply }) => {
    const { revoked, revoker, orgId } = await asCliToken(
      c,
      null,
      async (tx, grant) => {
        const revoker = { personId: grant.personId, actorLabel: grant.actorLabel };
        return { revoker, orgId: grant.orgId, revoked: await revokeCliTokens(tx, grant.orgId, revoker, all ? null : grant.tokenId) };
      },
      { allowSuspended: true },
    );
    if (!all) return reply(200, { revoked });
    // The person's other organizations, each in a transaction of its own.
    const connect = c.var.database().connect;
    let total = revoked;
    for (const org of (await personContext(connect, revoker.personId)).organizations) {
      if (org.id !== orgId) total += await inTenant(connect, org.id, (tx) => revokeCliTokens(tx, org.id, revoker, null));
    }
    return reply(200, { revoked: total });
  },
});
