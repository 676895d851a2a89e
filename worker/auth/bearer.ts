// Bearer tokens (engine and CLI): found by the hash of the presented value, never by comparing the
// secret, in a transaction that can see only the one row whose hash it names. A CLI token acts for
// its person: the routes that take one authorize it in the same transaction as their work.
import type { MiddlewareHandler } from "hono";
import type { TokenKind } from "../../db/schema";
import { actAs, inTransaction, type Tx } from "../../db/transaction";
import type { AppContext, AppEnv } from "../http/context";
import { Refusal } from "../http/refusal";
import { hashToken } from "../tokens/secret";
import { claimIsLive } from "../codehost/claims";
import { gateRoute } from "../billing/gate";
import { authorize, Denied, type Grant } from "./authorize";
import type { Permission } from "./permissions";

export interface Principal {
  tokenId: string;
  orgId: string;
  kind: TokenKind;
  /** A CLI token's granted scopes (what its person's role allows is checked by `authorize`). */
  scopes: string[];
  /** The person a CLI token acts for; null for an engine token. */
  personId: string | null;
  organization: { slug: string; plan: string; suspended: boolean };
}

// How long a suspended organization's engine should wait before sending the batch again.
export const SUSPENDED_RETRY_SECONDS = 300;

const FIND = `
SELECT id, org_id, kind, scopes, binding_id, person_id FROM tokens
WHERE token_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`;

// last_used_at is kept to the minute: one write per token per minute, not one per request.
const TOUCH_AND_READ_ORG = `
WITH touched AS (
  UPDATE tokens SET last_used_at = now()
  WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
)
SELECT slug, plan, suspended_at IS NOT NULL AS suspended FROM organizations WHERE id = $1`;

interface TokenRow {
  id: string;
  org_id: string;
  kind: TokenKind;
  scopes: string[];
  binding_id: string | null;
  person_id: string | null;
}

/** The live token behind `tokenHash` (the transaction must hold it as its `token_hash` lookup); the transaction then acts as its organization. */
async function findPrincipal(tx: Tx, tokenHash: string): Promise<Principal | null> {
  const { rows } = await tx.sql.query<TokenRow>(FIND, [tokenHash]);
  const token = rows[0];
  if (!token) return null;
  await actAs(tx, token.org_id);
  // A token minted by identity exchange dies with its repository claim.
  if (token.binding_id && !(await claimIsLive(tx, token.binding_id))) return null;
  const org = await tx.sql.query<Principal["organization"]>(TOUCH_AND_READ_ORG, [token.org_id, token.id]);
  return { tokenId: token.id, orgId: token.org_id, kind: token.kind, scopes: token.scopes, personId: token.person_id, organization: org.rows[0]! };
}

function presentedToken(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match ? match[1]! : null;
}

const article = (kind: TokenKind) => (kind === "engine" ? "an engine" : "a CLI");

/**
 * Runs `work` in one transaction that first finds the caller's live token of one of `kinds` (by
 * default the bearer of the Authorization header), refuses a suspended organization unless allowed,
 * and applies the required-plan gate to the route.
 */
async function withToken<T>(
  c: AppContext,
  kinds: readonly TokenKind[],
  options: { allowSuspended?: boolean; presented?: string | null },
  work: (tx: Tx, principal: Principal) => Promise<T>,
): Promise<T> {
  const value = options.presented === undefined ? presentedToken(c.req.header("authorization")) : options.presented;
  const named = kinds.map(article).join(" or ");
  if (!value) throw new Refusal("unauthenticated", `Send ${named} token${options.presented === undefined ? " as an HTTP bearer" : ""}.`);
  const tokenHash = await hashToken(value);
  return inTransaction(c.var.database().connect, { lookups: { token_hash: tokenHash } }, async (tx) => {
    const principal = await findPrincipal(tx, tokenHash);
    if (!principal || !kinds.includes(principal.kind)) {
      throw new Refusal("unauthenticated", `The ${kinds.join(" or ")} token is unknown, expired or revoked.`);
    }
    if (principal.organization.suspended && !options.allowSuspended) {
      throw new Refusal("organization_suspended", undefined, SUSPENDED_RETRY_SECONDS);
    }
    gateRoute(c, principal.organization.plan);
    return work(tx, principal);
  });
}

/**
 * An engine route whose work shares the transaction that found the token (ingestion): fewer round
 * trips, and the token and organization checked are the ones in force when the work commits.
 */
export const asEngineToken = <T>(c: AppContext, work: (tx: Tx, principal: Principal) => Promise<T>) => withToken(c, ["engine"], {}, work);

/** Engine routes: the caller's live engine token, set as `principal`; with `allowSuspended`, a suspended organization still passes. */
export function requireToken(kind: "engine", options: { allowSuspended?: boolean } = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set("principal", await withToken(c, [kind], options, async (_tx, principal) => principal));
    await next();
  };
}

/**
 * CLI routes: finds the caller's CLI token, authorizes `permission` for its person (their current
 * role and the token's scopes) and does the route's work, all in one transaction of the token's
 * organization.
 */
export function asCliToken<T>(c: AppContext, permission: Permission, work: (tx: Tx, grant: Grant & { tokenId: string }) => Promise<T>): Promise<T> {
  return withToken(c, ["cli"], {}, async (tx, principal) => work(tx, { ...(await authorizeCliToken(tx, principal, permission)), tokenId: principal.tokenId }));
}

/** A CLI token's person, authorized for `permission` (null: only that they are still a member). */
async function authorizeCliToken(tx: Tx, principal: Principal, permission: Permission | null): Promise<Grant> {
  const caller = { kind: "cli" as const, personId: principal.personId!, tokenId: principal.tokenId, scopes: principal.scopes };
  return authorize(tx, caller, principal.orgId, permission).catch((denied: unknown) => {
    if (!(denied instanceof Denied)) throw denied;
    // The person left the organization (their tokens are revoked with it): the token is no longer anyone's.
    if (denied.reason === "not_member") throw new Refusal("unauthenticated", "The CLI token's person is no longer a member of its organization.");
    throw new Refusal("forbidden", denied.message);
  });
}

/**
 * The model proxy: an engine or a CLI token, presented in whichever header the provider's clients
 * send a key in (`x-api-key`, or the bearer); a CLI token's person must still be a member. The work
 * (reserving budget) shares the transaction.
 */
export function asProxyCaller<T>(c: AppContext, work: (tx: Tx, principal: Principal) => Promise<T>): Promise<T> {
  const presented = c.req.header("x-api-key")?.trim() || presentedToken(c.req.header("authorization"));
  return withToken(c, ["engine", "cli"], { presented }, async (tx, principal) => {
    if (principal.kind === "cli") await authorizeCliToken(tx, principal, null);
    return work(tx, principal);
  });
}
