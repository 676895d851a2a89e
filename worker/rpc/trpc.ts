// The console's RPC: tRPC, so the unmodified @trpc/client (batching included) speaks to it and its
// result and failure shapes are exactly the spec's. Every procedure states the permission it needs and
// its side of the plan gate (meta), and one middleware checks both with `authorize` inside the
// transaction the procedure works in.
import { initTRPC } from "@trpc/server";
import * as z from "zod";
import type { Role } from "../../db/schema";
import { addLookup, openTransaction, type OpenTransaction, type Tx } from "../../db/transaction";
import { authorize } from "../auth/authorize";
import { checkPlanGate, type GateSide } from "../billing/gate";
import type { Permission } from "../shared/permissions";
import { Refusal } from "../http/refusal";
import { checkCsrf } from "../sessions/csrf";
import { findLiveSession, type LiveSession } from "../sessions/store";
import { hashToken } from "../tokens/secret";
import type { RpcBearer, RpcContext } from "./context";
import { answerRefusals, formatRpcError } from "./errors";

export interface ProcedureMeta {
  /**
   * The permission the procedure needs in the organization it acts on; null: any member (or, for a
   * procedure acting on no organization, any signed-in person).
   */
  permission: Permission | null;
  /**
   * Its side of the required-plan gate (worker/billing/gate.ts), checked with the permission. A
   * procedure acting on no organization has no plan to check: "reachable".
   */
  gate: GateSide;
  summary: string;
  /** Operator procedures (admin.*) are left out of /openapi.json. */
  operator?: boolean;
}

const t = initTRPC
  .context<RpcContext>()
  .meta<ProcedureMeta>()
  .create({
    isDev: false,
    errorFormatter: formatRpcError,
  });

export const router = t.router;
/**
 * The bare procedure (for middlewares of another kind of caller: the operator portal's admin.*);
 * what it or anything after it throws as a Refusal answers in the envelope with the Refusal's code.
 */
export const procedure = t.procedure.use(answerRefusals);

/** The transaction a procedure works in: opened by its middleware, committed when the procedure succeeds. */
export interface Work {
  tx: Tx;
  /**
   * Commits now, for a procedure whose next steps must see its writes from elsewhere (a Durable
   * Object, a workflow the code host starts); after it, `tx` is spent and further work opens its own.
   */
  commit: () => Promise<unknown>;
}

/** Who calls, found inside the transaction the procedure then works in. */
interface OpenCaller {
  transaction: OpenTransaction;
  session: LiveSession;
  /** A bearer acts for this one organization only; null: a browser session, any of the person's. */
  onlyOrgId: string | null;
}

/** A browser: a live session cookie, and for a mutation also the session's CSRF token in x-svc-csrf. */
async function openBrowserCaller(ctx: RpcContext, mutation: boolean): Promise<OpenCaller | null> {
  if (!ctx.sessionToken) return null;
  const sessionHash = await hashToken(ctx.sessionToken);
  const open = await openTransaction(ctx.connect, { lookups: { session_hash: sessionHash } });
  try {
    const session = await findLiveSession(open.tx, ctx.sessionToken, sessionHash);
    if (!session) {
      await open.rollback();
      return null;
    }
    if (mutation) await checkCsrf(session.token, ctx.csrfHeader);
    return { transaction: open, session, onlyOrgId: null };
  } catch (error) {
    await open.rollback();
    throw error;
  }
}

/** A bearer that is no browser (ctx.bearer: /mcp's tool calls): no cookie, so no CSRF; one organization. */
async function openBearerCaller(ctx: RpcContext, bearer: RpcBearer): Promise<OpenCaller | null> {
  const found = await bearer.open(ctx.connect);
  return found && { transaction: found.transaction, session: { id: found.credentialId, personId: found.personId, token: "" }, onlyOrgId: found.orgId };
}

/**
 * A live session (or the context's bearer), found inside the transaction the procedure then works in
 * (which also sees the person's own rows); for a browser's mutation also the session's CSRF token.
 */
export const signedIn = procedure.use(async ({ ctx, type, next }) => {
  const caller = ctx.bearer ? await openBearerCaller(ctx, ctx.bearer) : await openBrowserCaller(ctx, type === "mutation");
  if (!caller) throw new Refusal("unauthenticated", "Sign in first: the console needs a browser session.");
  const { transaction: open, session } = caller;
  try {
    await addLookup(open.tx, "person_id", session.personId);
    const result = await next({ ctx: { ...ctx, session, onlyOrgId: caller.onlyOrgId, tx: open.tx, commit: open.commit } satisfies SignedInContext });
    if (result.ok) await open.commit();
    else await open.rollback();
    return result;
  } finally {
    await open.rollback(); // a no-op once committed
  }
});

export type SignedInContext = RpcContext & Work & { session: LiveSession; onlyOrgId: string | null };

/** What a procedure acting on an organization sees. */
export type OrgContext = SignedInContext & {
  org: { id: string; role: Role };
  /** Who acts, as the audit log records it. */
  actor: { actorPersonId: string; actorLabel: string };
};

export const OrgInput = z.object({ orgId: z.uuid().describe("The organization the procedure acts on.") });

/**
 * Acting on an organization: `authorize` checks, in the procedure's own transaction, that the caller
 * is a member (another organization answers exactly like a missing one) whose role holds the
 * procedure's declared permission (meta.permission; null means any member), then the plan gate on
 * the procedure's declared side (meta.gate).
 */
export const inOrganization = signedIn.input(OrgInput).use(async ({ ctx, input, meta, path, next }) => {
  if (meta === undefined) throw new Error(`Procedure ${path} declares no permission.`);
  const { orgId } = input as z.infer<typeof OrgInput>;
  // A bearer bound to one organization sees no other: another answers exactly like a missing one.
  if (ctx.onlyOrgId !== null && ctx.onlyOrgId !== orgId) throw new Refusal("not_found", "No such organization.");
  const grant = await authorize(ctx.tx, { kind: "session", personId: ctx.session.personId }, orgId, meta.permission);
  checkPlanGate(ctx.config, grant.plan, meta.gate);
  const org = { id: orgId, role: grant.role };
  return next({ ctx: { ...ctx, org, actor: { actorPersonId: grant.personId, actorLabel: grant.actorLabel } } satisfies OrgContext });
});
