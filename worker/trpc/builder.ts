// The console's RPC: tRPC, so the unmodified @trpc/client (batching included) speaks to it and its
// result and failure shapes are exactly the spec's. Every procedure states the permission it needs and
// its side of the plan gate (meta), and one middleware checks both with `authorize` in a short
// transaction of its own; the procedure then opens its own units of work (ctx.transaction).
import { initTRPC, type TRPCError } from "@trpc/server";
import * as z from "zod";
import type { Role } from "../../db/schema";
import { inTransaction, type Scope, type Transaction, type Tx } from "../../db/transaction";
import { addLookup } from "../../db/acting";
import type { LiveSession } from "../http/caller";
import type { GateSide } from "../http/context";
import type { LiveTopic } from "../shared/live";
import type { Permission } from "../shared/permissions";
import { Refusal } from "../http/refusal";
import { hashToken } from "../http/hash";
import type { RpcBearer, RpcContext } from "./context";
import { answerRefusals, formatRpcError } from "./errors";

export interface ProcedureMeta {
  /**
   * The permission the procedure needs in the organization it acts on; null: any member (or, for a
   * procedure acting on no organization, any signed-in person).
   */
  permission: Permission | null;
  /**
   * Its side of the required-plan gate (worker/http/plan-gate.ts), checked with the permission. A
   * procedure acting on no organization has no plan to check: "reachable".
   */
  gate: GateSide;
  summary: string;
  /** Operator procedures (admin.*) are left out of /openapi.json. */
  operator?: boolean;
  /** What a successful call changes, for the organization's open consoles (worker/live). */
  live?: LiveTopic;
}

const t = initTRPC.context<RpcContext>().meta<ProcedureMeta>().create({
  isDev: false,
  errorFormatter: formatRpcError,
});

export const router = t.router;
/**
 * The bare procedure (for middlewares of another kind of caller: the operator portal's admin.*);
 * what it or anything after it throws as a Refusal answers in the envelope with the Refusal's code.
 */
export const procedure = t.procedure.use(answerRefusals);

type Lookups = NonNullable<Scope["lookups"]>;

/** How a caller is found: the lookups that let its transaction see its credential, and the look-up itself. */
interface CallerKey {
  lookups: Lookups;
  find: (tx: Tx) => Promise<{ session: LiveSession; onlyOrgId: string | null } | null>;
}

/** A browser: a live session cookie, and for a mutation also the session's CSRF token in x-svc-csrf. */
async function browserKey(ctx: RpcContext, mutation: boolean): Promise<CallerKey | null> {
  const token = ctx.sessionToken;
  if (!token) return null;
  const sessionHash = await hashToken(token);
  return {
    lookups: { session_hash: sessionHash },
    find: async (tx) => {
      const session = await ctx.authority.findSession(tx, token, sessionHash);
      if (!session) return null;
      if (mutation) await ctx.authority.checkCsrf(session.token, ctx.csrfHeader);
      // A bearer acts for its one organization only; a browser session, for any of the person's.
      return { session, onlyOrgId: null };
    },
  };
}

/** A bearer that is no browser (ctx.bearer: /mcp's tool calls): no cookie, so no CSRF; one organization. */
async function bearerKey(bearer: RpcBearer): Promise<CallerKey> {
  const { lookups, find } = await bearer.key();
  return {
    lookups,
    find: async (tx) => {
      const found = await find(tx);
      return found && { session: { id: found.credentialId, personId: found.personId, token: "" }, onlyOrgId: found.orgId };
    },
  };
}

const signInFirst = () => new Refusal("unauthenticated", "Sign in first: the console needs a browser session.");

/**
 * Authorization in a short transaction of its own: the live session (or the context's bearer), and
 * `also` (an organization's membership, permission and plan gate) in the same one. The procedure's
 * own transactions carry the same lookups, so they see the person's own rows.
 */
async function authorizeCaller<T>(ctx: RpcContext, mutation: boolean, also: (tx: Tx, session: LiveSession, onlyOrgId: string | null) => Promise<T>) {
  const key = ctx.bearer ? await bearerKey(ctx.bearer) : await browserKey(ctx, mutation);
  if (!key) throw signInFirst();
  return inTransaction(ctx.connect, { lookups: key.lookups }, async (tx) => {
    const caller = await key.find(tx);
    if (!caller) throw signInFirst();
    await addLookup(tx, "person_id", caller.session.personId);
    const lookups: Lookups = { ...key.lookups, person_id: caller.session.personId };
    return { ...caller, lookups, granted: await also(tx, caller.session, caller.onlyOrgId) };
  });
}

/**
 * Who, then what: tRPC parses an `.input()` where it stands in the chain, and `inOrganization` needs
 * the orgId its input names to authorize, so its input is parsed first. A call whose input is refused
 * (not JSON, a field missing or malformed) has its caller checked before the refusal is answered: no
 * live session (or bearer) is 401, a change without its CSRF header 403, and a stranger learns
 * nothing of the procedure's schema. A call whose input is valid pays nothing for this: its caller
 * is found in the authorization transaction.
 */
const callerBeforeInput = procedure.use(async ({ ctx, type, next }) => {
  const result = await next();
  if (!result.ok && refusedInput(result.error)) await authorizeCaller(ctx, type === "mutation", async () => null);
  return result;
});

/** A failure of the call's input: tRPC's 400 (a field, a batch's shape) or JSON it could not parse. */
const refusedInput = (error: TRPCError) => error.code === "BAD_REQUEST" || error.cause instanceof SyntaxError;

/** A live session (or the context's bearer); the procedure opens its own transactions. */
export const signedIn = procedure.use(async ({ ctx, type, next }) => {
  const caller = await authorizeCaller(ctx, type === "mutation", async () => null);
  const transaction: Transaction = (work) => inTransaction(ctx.connect, { lookups: caller.lookups }, work);
  return next({ ctx: { ...ctx, session: caller.session, onlyOrgId: caller.onlyOrgId, transaction } satisfies SignedInContext });
});

export type SignedInContext = RpcContext & {
  session: LiveSession;
  onlyOrgId: string | null;
  /**
   * Opens the procedure's unit of work, acting as the caller (and, in an organization, as it). A
   * procedure opens as many as it needs, one after another, and makes its network calls between
   * them, never inside one (db/README.md, "Units of work").
   */
  transaction: Transaction;
};

/** What a procedure acting on an organization sees. */
export type OrgContext = SignedInContext & {
  org: { id: string; role: Role };
  /** Who acts, as the audit log records it. */
  actor: { actorPersonId: string; actorLabel: string };
};

export const OrgInput = z.object({ orgId: z.uuid().describe("The organization the procedure acts on.") });

/**
 * Acting on an organization: `authorize` checks, in the short authorization transaction, that the
 * caller is a member (another organization answers exactly like a missing one) whose role holds the
 * procedure's declared permission (meta.permission; null means any member), then the plan gate on
 * the procedure's declared side (meta.gate).
 */
export const inOrganization = callerBeforeInput.input(OrgInput).use(async ({ ctx, input, meta, path, type, next }) => {
  if (meta === undefined) throw new Error(`Procedure ${path} declares no permission.`);
  const { orgId } = input as z.infer<typeof OrgInput>;
  const caller = await authorizeCaller(ctx, type === "mutation", async (tx, session, onlyOrgId) => {
    // A bearer bound to one organization sees no other: another answers exactly like a missing one.
    if (onlyOrgId !== null && onlyOrgId !== orgId) throw new Refusal("not_found", "No such organization.");
    return ctx.authority.authorize(tx, session.personId, orgId, meta.permission, meta.gate);
  });
  const { granted: grant } = caller;
  const transaction: Transaction = (work) => inTransaction(ctx.connect, { orgId, lookups: caller.lookups }, work);
  const org = { id: orgId, role: grant.role };
  const result = await next({
    ctx: {
      ...ctx,
      session: caller.session,
      onlyOrgId: caller.onlyOrgId,
      transaction,
      org,
      actor: { actorPersonId: grant.personId, actorLabel: grant.actorLabel },
    } satisfies OrgContext,
  });
  // After the procedure's units of work committed, while a console may be watching; a change names no
  // environment, so every page of its topic reads again.
  if (result.ok && meta.live && grant.watched) ctx.waitUntil(ctx.authority.publish(orgId, meta.live));
  return result;
});
