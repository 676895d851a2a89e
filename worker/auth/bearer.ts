// Bearer tokens (engine and CLI): found by the hash of the presented value, never by comparing the
// secret, in a transaction that can see only the one row whose hash it names.
import type { MiddlewareHandler } from "hono";
import type { TokenKind } from "../../db/schema";
import { actAs, inTransaction, type Connection } from "../../db/transaction";
import type { AppContext, AppEnv } from "../http/context";
import { Refusal } from "../http/refusal";
import { hashToken } from "../tokens/secret";
import { claimIsLive } from "../codehost/claims";

export interface Principal {
  tokenId: string;
  orgId: string;
  kind: TokenKind;
  scopes: string[];
  organization: { slug: string; plan: string; suspended: boolean };
}

// How long a suspended organization's engine should wait before sending the batch again.
export const SUSPENDED_RETRY_SECONDS = 300;

const FIND = `
SELECT id, org_id, kind, scopes, binding_id FROM tokens
WHERE token_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`;

// last_used_at is kept to the minute: one write per token per minute, not one per request.
const TOUCH_AND_READ_ORG = `
WITH touched AS (
  UPDATE tokens SET last_used_at = now()
  WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
)
SELECT slug, plan, suspended_at IS NOT NULL AS suspended FROM organizations WHERE id = $1`;

export async function resolveToken(connect: () => Promise<Connection>, value: string): Promise<Principal | null> {
  const tokenHash = await hashToken(value);
  return inTransaction(connect, { lookups: { token_hash: tokenHash } }, async (tx) => {
    const { rows } = await tx.sql.query<{ id: string; org_id: string; kind: TokenKind; scopes: string[]; binding_id: string | null }>(FIND, [tokenHash]);
    const token = rows[0];
    if (!token) return null;
    // Now that the organization is known, act as it.
    await actAs(tx, token.org_id);
    // A token minted by identity exchange dies with its repository claim.
    if (token.binding_id && !(await claimIsLive(tx, token.binding_id))) return null;
    const org = await tx.sql.query<Principal["organization"]>(TOUCH_AND_READ_ORG, [token.org_id, token.id]);
    return { tokenId: token.id, orgId: token.org_id, kind: token.kind, scopes: token.scopes, organization: org.rows[0]! };
  });
}

function presentedToken(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match ? match[1]! : null;
}

/** The caller's live token of `kind`; with `allowSuspended`, a suspended organization still passes. */
export async function authenticateToken(c: AppContext, kind: TokenKind, options: { allowSuspended?: boolean } = {}): Promise<Principal> {
  const value = presentedToken(c.req.header("authorization"));
  if (!value) throw new Refusal("unauthenticated", `Send ${kind === "engine" ? "an engine" : "a CLI"} token as an HTTP bearer.`);
  const principal = await resolveToken(c.var.database().connect, value);
  if (!principal || principal.kind !== kind) {
    throw new Refusal("unauthenticated", `The ${kind === "engine" ? "engine" : "CLI"} token is unknown, expired or revoked.`);
  }
  if (principal.organization.suspended && !options.allowSuspended) {
    throw new Refusal("organization_suspended", undefined, SUSPENDED_RETRY_SECONDS);
  }
  return principal;
}

export function requireToken(kind: TokenKind, options: { allowSuspended?: boolean } = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set("principal", await authenticateToken(c, kind, options));
    await next();
  };
}
