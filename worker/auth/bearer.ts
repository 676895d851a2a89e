// Bearer tokens (engine and CLI): found by the hash of the presented value, never by comparing the
// secret, in a transaction that can see only the one row whose hash it names. A CLI token acts for
// its person: the routes that take one authorize it in the same transaction as their work.
import type { MiddlewareHandler } from "hono";
import type { TokenKind } from "../../db/schema";
import type { Plan } from "../../db/enums";
import { literal, type Piggyback, type Statement, statement } from "../../db/pipeline";
import { inOneRoundTrip, inTransaction, type OneRoundTrip, type Scope, type Tx } from "../../db/transaction";
import type { AppContext, AppEnv } from "../http/context";
import { Refusal } from "../http/refusal";
import { hashToken } from "../http/hash";
import { checkRequiredPlan, gateRoute, requiredPlan, routeGateSide } from "../http/plan-gate";
import { authorize, Denied, type Grant } from "./authorize";
import { forgetTokenOrg, rememberTokenOrg, tokenOrg } from "./token-orgs";
import type { Permission } from "../shared/permissions";

export interface Principal {
  tokenId: string;
  orgId: string;
  kind: TokenKind;
  /** A CLI token's granted scopes (what its person's role allows is checked by `authorize`). */
  scopes: string[];
  /** The person a CLI token acts for; null for an engine token. */
  personId: string | null;
  /** `watched`: a console may be watching it live (worker/live), so a change is worth telling. */
  organization: { slug: string; plan: string; suspended: boolean; watched: boolean };
}

// How long a suspended organization's engine should wait before sending the batch again.
export const SUSPENDED_RETRY_SECONDS = 300;

/** The spec's refusal of a suspended organization's work (403 with retryAfterSeconds), for engines and the console alike. */
export const organizationSuspended = (sentence?: string) => new Refusal("organization_suspended", sentence, SUSPENDED_RETRY_SECONDS);

/**
 * The live token behind the transaction's token_hash look-up, with its organization: `svc_principal`
 * (db/migrations/0039_planned_once.sql, a function, so that each backend plans it once). It reads the
 * look-up from the transaction's settings, so it takes no parameters and can open the transaction
 * (Scope.first). `actAsTokenOrg`: the transaction acts as the token's own organization, chosen first.
 * With an admission, it also decides it in SQL, from the same row, for the work sent in the same round
 * trip (inOneRoundTrip).
 */
const principal = (actAsTokenOrg: boolean, admission?: Admission) => {
  const flag = (value: boolean) => (value ? statement`true` : statement`false`);
  const admits = admission
    ? statement`${literal(admission.kinds)}, ${flag(admission.allowSuspended)}, ${literal(admission.requiredPlan)}`
    : statement`NULL, false, NULL`;
  return statement`SELECT * FROM svc_principal(${flag(actAsTokenOrg)}, ${admits})`;
};

/** What a route admits: a live token of one of `kinds`, of a suspended organization or not, on the plan its gate requires (null: any). */
export interface Admission {
  kinds: readonly TokenKind[];
  allowSuspended: boolean;
  requiredPlan: Plan | null;
}

interface PrincipalRow {
  id: string;
  org_id: string;
  kind: TokenKind;
  scopes: string[];
  person_id: string | null;
  slug: string;
  plan: string;
  suspended: boolean;
  watched: boolean;
}

/**
 * The live token `principal` found, from the rows it answered as the transaction's first statement
 * (tokenScope, admittingScope). The isolate remembers the token's organization, or forgets it.
 */
export function principalFrom(tokenHash: string, found: readonly Record<string, unknown>[]): Principal | null {
  const row = found[0] as PrincipalRow | undefined;
  if (!row) {
    forgetTokenOrg(tokenHash);
    return null;
  }
  rememberTokenOrg(tokenHash, row.org_id);
  return {
    tokenId: row.id,
    orgId: row.org_id,
    kind: row.kind,
    scopes: row.scopes,
    personId: row.person_id,
    organization: { slug: row.slug, plan: row.plan, suspended: row.suspended, watched: row.watched },
  };
}

/** A transaction that acts as the organization of the token behind `tokenHash` and finds the token, in the round trip that opens it. */
const tokenScope = (tokenHash: string): Scope => ({ lookups: { token_hash: tokenHash }, first: principal(true) });

/**
 * Whether `principal` may do a route's work: a live token of one of `kinds`, its organization not
 * suspended unless allowed, and the required-plan gate (`gate`, given the organization's plan).
 * Throws the spec's Refusal.
 */
export function admit(
  principal: Principal | null,
  kinds: readonly TokenKind[],
  options: { allowSuspended?: boolean },
  gate: (plan: string) => void,
): Principal {
  if (!principal || !kinds.includes(principal.kind)) {
    throw new Refusal("unauthenticated", `The ${kinds.join(" or ")} token is unknown, expired or revoked.`);
  }
  if (principal.organization.suspended && !options.allowSuspended) {
    throw organizationSuspended();
  }
  gate(principal.organization.plan);
  return principal;
}

function presentedToken(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match ? match[1]! : null;
}

const article = (kind: TokenKind) => (kind === "engine" ? "an engine" : "a CLI");

/** The hash of the caller's token (by default the bearer of the Authorization header); refuses none. */
async function presentedHash(c: AppContext, kinds: readonly TokenKind[], presented?: string | null): Promise<string> {
  const value = presented === undefined ? presentedToken(c.req.header("authorization")) : presented;
  const named = kinds.map(article).join(" or ");
  if (!value) throw new Refusal("unauthenticated", `Send ${named} token${presented === undefined ? " as an HTTP bearer" : ""}.`);
  return hashToken(value);
}

/**
 * Runs `work` in one transaction that first finds the live token behind `tokenHash`, of one of
 * `kinds`, refuses a suspended organization unless allowed, and applies the required-plan gate to
 * the route.
 */
function inTokenTransaction<T>(
  c: AppContext,
  tokenHash: string,
  kinds: readonly TokenKind[],
  options: { allowSuspended?: boolean },
  work: (tx: Tx, principal: Principal) => Promise<T>,
): Promise<T> {
  return inTransaction(c.var.database().connect, tokenScope(tokenHash), (tx, first) =>
    work(
      tx,
      admit(principalFrom(tokenHash, first), kinds, options, (plan) => gateRoute(c, plan)),
    ),
  );
}

/** A scope whose first statement finds the token behind `tokenHash` and decides `admission` for the work sent with it. */
export const admittingScope = (tokenHash: string, orgId: string | null, admission: Admission): Scope & { first: Statement } => ({
  ...(orgId === null ? {} : { orgId }),
  lookups: { token_hash: tokenHash },
  first: principal(orgId === null, admission),
});

/**
 * The principal an admitting scope found, admitted by `admit` (throwing its refusal, in which case
 * the work did nothing), once it is certain the SQL decided alike: a disagreement is a bug in one of
 * the two, answered as one.
 */
export function admitFound(tokenHash: string, found: readonly Record<string, unknown>[], admission: Admission): Principal {
  const admittedInSql = (found[0]?.admitted_token as string | undefined) || null;
  let principal: Principal;
  try {
    principal = admit(principalFrom(tokenHash, found), admission.kinds, { allowSuspended: admission.allowSuspended }, (plan) =>
      checkRequiredPlan(plan, admission.requiredPlan),
    );
  } catch (refusal) {
    if (admittedInSql !== null) throw new Error("The token's admission in SQL let work through that the code refuses.");
    throw refusal;
  }
  if (admittedInSql !== principal.tokenId) throw new Error("The token's admission in SQL refused what the code admits.");
  return principal;
}

/** What engine routes admit: a live engine token, its organization not suspended unless allowed, on `plan` when the route's gate names one. */
const engineAdmission = (plan: Plan | null, allowSuspended = false): Admission => ({ kinds: ["engine"], allowSuspended, requiredPlan: plan });

/**
 * The live engine token behind `tokenHash` (of organization `orgId`, or null: whichever it is) found
 * and admitted on the plan `requiredPlan`, and `work`, which does nothing for a token not admitted
 * (ADMITTED_TOKEN), with the COMMIT: one round trip (inOneRoundTrip). A refusal is raised once committed.
 */
export const engineTokenAtOnce = <T>(tokenHash: string, orgId: string | null, plan: Plan | null, work: Piggyback<T>) =>
  admittedAtOnce(tokenHash, orgId, engineAdmission(plan), work);

function admittedAtOnce<T>(
  tokenHash: string,
  orgId: string | null,
  admission: Admission,
  work: Piggyback<T>,
): OneRoundTrip<{ principal: Principal; value: T }> {
  return {
    scope: admittingScope(tokenHash, orgId, admission),
    last: work.text,
    result: (found, rows) => ({ principal: admitFound(tokenHash, found, admission), value: work.read(rows) }),
  };
}

/**
 * The one way an engine route's work meets its token: the work is one statement (db/pipeline.ts) that
 * does nothing for a token the transaction did not admit (ADMITTED_TOKEN), and possibly more work that
 * needs its answer (`then`). Without `then`: the token found and admitted, the statement and the
 * COMMIT in one round trip (inOneRoundTrip). With it: the statement is sent once the token is
 * admitted, then `then` runs, in the same transaction. `orgId`: the token's organization, when the
 * caller already found it. `allowSuspended`: a suspended organization's token is admitted too.
 */
export async function withEngineToken<S>(
  c: AppContext,
  work: Piggyback<S>,
  options: { orgId?: string; allowSuspended?: boolean; then?: (tx: Tx, principal: Principal, value: S) => Promise<void> } = {},
): Promise<{ principal: Principal; value: S }> {
  const tokenHash = await presentedHash(c, ["engine"]);
  const plan = requiredPlan(c.var.config, routeGateSide(c));
  const { connect } = c.var.database();
  const { then } = options;
  const admission = engineAdmission(plan, options.allowSuspended);
  if (!then) return inOneRoundTrip(connect, admittedAtOnce(tokenHash, options.orgId ?? null, admission, work));
  return inTransaction(connect, admittingScope(tokenHash, options.orgId ?? null, admission), async (tx, found, send) => {
    const principal = admitFound(tokenHash, found, admission);
    const value = work.read(await send(work.text));
    await then(tx, principal, value);
    return { principal, value };
  });
}

/** The caller's engine token, found and admitted in one round trip, and nothing more (withEngineToken with no work). */
export const admittedEngineToken = async (c: AppContext, options: { allowSuspended?: boolean } = {}): Promise<Principal> =>
  (await withEngineToken(c, { text: statement`SELECT 1`, read: () => null }, options)).principal;

const withToken = async <T>(
  c: AppContext,
  kinds: readonly TokenKind[],
  options: { allowSuspended?: boolean; presented?: string | null },
  work: (tx: Tx, principal: Principal) => Promise<T>,
): Promise<T> => inTokenTransaction(c, await presentedHash(c, kinds, options.presented), kinds, options, work);

/**
 * The presented engine token's hash and, when this isolate has seen the token, its organization:
 * no database round trip and no check (the work's own transaction checks the token).
 */
export async function presentedEngineToken(c: AppContext): Promise<{ tokenHash: string; orgId: string | undefined }> {
  const tokenHash = await presentedHash(c, ["engine"]);
  return { tokenHash, orgId: tokenOrg(tokenHash) };
}

/**
 * Engine routes whose work runs in an environment's object, which checks the token in the work's own
 * transaction: sets `caller`. A token this isolate has not seen yet is checked here first, in full
 * (which also remembers its organization); one it has seen goes on without a database round trip.
 */
export function identifyToken(kind: "engine"): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { tokenHash, orgId: known } = await presentedEngineToken(c);
    const orgId = known ?? (await inTokenTransaction(c, tokenHash, [kind], {}, async (_tx, principal) => principal)).orgId;
    c.set("caller", { tokenHash, orgId });
    await next();
  };
}

/**
 * CLI routes: finds the caller's CLI token, authorizes `permission` for its person (their current
 * role and the token's scopes; null: only that they are still a member) and does the route's work,
 * all in one transaction of the token's organization. With `allowSuspended`, a suspended organization still passes.
 */
export function asCliToken<T>(
  c: AppContext,
  permission: Permission | null,
  work: (tx: Tx, grant: Grant & { tokenId: string }) => Promise<T>,
  options: { allowSuspended?: boolean } = {},
): Promise<T> {
  return withToken(c, ["cli"], options, async (tx, principal) =>
    work(tx, { ...(await authorizeCliToken(tx, principal, permission)), tokenId: principal.tokenId }),
  );
}

/** A CLI token's person, authorized for `permission` (null: only that they are still a member). */
async function authorizeCliToken(tx: Tx, principal: Principal, permission: Permission | null): Promise<Grant> {
  const caller = { kind: "cli" as const, personId: principal.personId!, tokenId: principal.tokenId, scopes: principal.scopes };
  return authorize(tx, caller, principal.orgId, permission).catch((denied: unknown) => {
    // The person left the organization (their tokens are revoked with it): the token is no longer anyone's.
    if (denied instanceof Denied && denied.reason === "not_member")
      throw new Refusal("unauthenticated", "The CLI token's person is no longer a member of its organization.");
    throw denied;
  });
}

/**
 * Whether the caller's token is live and of one of `kinds` (a CLI token's person still a member), in
 * a transaction of its own and nothing more (no suspension or plan check: that is the route's work).
 * For a route that must refuse a stranger before it reads or validates what they sent.
 */
export async function authenticate(c: AppContext, kinds: readonly TokenKind[], presented?: string | null): Promise<void> {
  const tokenHash = await presentedHash(c, kinds, presented);
  await inTransaction(c.var.database().connect, tokenScope(tokenHash), async (tx, first) => {
    const principal = admit(principalFrom(tokenHash, first), kinds, { allowSuspended: true }, () => {});
    if (principal.kind === "cli") await authorizeCliToken(tx, principal, null);
  });
}

const PROXY_KINDS: readonly TokenKind[] = ["engine", "cli"];

/** The model proxy's token: in whichever header the provider's clients send a key in (`x-api-key`, or the bearer). */
const proxyToken = (c: AppContext) => c.req.header("x-api-key")?.trim() || presentedToken(c.req.header("authorization"));

/** The model proxy refuses a stranger before it reads a body of up to 16 MiB. */
export const authenticateProxyCaller = (c: AppContext) => authenticate(c, PROXY_KINDS, proxyToken(c));

/**
 * The model proxy: an engine or a CLI token (proxyToken); a CLI token's person must still be a
 * member. The work (reserving budget) shares the transaction.
 */
export function asProxyCaller<T>(c: AppContext, work: (tx: Tx, principal: Principal) => Promise<T>): Promise<T> {
  return withToken(c, PROXY_KINDS, { presented: proxyToken(c) }, async (tx, principal) => {
    if (principal.kind === "cli") await authorizeCliToken(tx, principal, null);
    return work(tx, principal);
  });
}
