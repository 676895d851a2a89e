// The console's RPC: tRPC, so the unmodified @trpc/client (batching included) speaks to it and its
// result and failure shapes are exactly the spec's. Every procedure states the permission it needs
// (meta), and one middleware checks it against the one permission table.
import { initTRPC, TRPCError } from "@trpc/server";
import { z } from "zod";
import type { Role } from "../../db/schema";
import { roleAllows, type Permission } from "../auth/permissions";
import { Refusal } from "../http/refusal";
import { log } from "../log";
import { memberRole } from "../members/role";
import { checkCsrf } from "../sessions/csrf";
import type { RpcContext } from "./context";
import type { LiveSession } from "../sessions/store";

export interface ProcedureMeta {
  /** The permission the procedure needs in the organization it acts on; null: any signed-in person. */
  permission: Permission | null;
  summary: string;
  /** Operator procedures (admin.*) are left out of /openapi.json. */
  operator?: boolean;
}

const t = initTRPC
  .context<RpcContext>()
  .meta<ProcedureMeta>()
  .create({
    isDev: false,
    errorFormatter({ shape, error, ctx }) {
      if (error.code !== "INTERNAL_SERVER_ERROR") return shape;
      // The cause stays in the logs (by name, never its message or the input); the caller gets a sentence.
      log("error", "rpc.failed", { requestId: ctx?.requestId, path: shape.data.path, errorName: error.cause?.name });
      return { ...shape, message: "Something went wrong on our side; try again, and report the request id if it persists." };
    },
  });

export const router = t.router;

/** A live session; for a mutation also the session's CSRF token in x-svc-csrf. */
export const signedIn = t.procedure.use(async ({ ctx, type, next }) => {
  if (!ctx.session) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in first: the console needs a browser session." });
  if (type === "mutation") {
    await checkCsrf(ctx.session.token, ctx.csrfHeader).catch((refusal: Refusal) => {
      throw new TRPCError({ code: "FORBIDDEN", message: refusal.message });
    });
  }
  return next({ ctx: { ...ctx, session: ctx.session } });
});

/** What a procedure acting on an organization sees. */
export type OrgContext = RpcContext & { session: LiveSession; org: { id: string; role: Role } };

export const OrgInput = z.object({ orgId: z.uuid().describe("The organization the procedure acts on.") });

/**
 * Acting on an organization: the caller must be a member (another organization answers exactly like
 * a missing one) whose role holds the procedure's permission (meta.permission).
 */
export const inOrganization = signedIn.input(OrgInput).use(async ({ ctx, input, meta, next }) => {
  const { orgId } = input as z.infer<typeof OrgInput>;
  const role = await memberRole(ctx.connect, orgId, ctx.session.personId);
  if (!role) throw new TRPCError({ code: "NOT_FOUND", message: "No such organization." });
  const permission = meta?.permission ?? null;
  if (permission && !roleAllows(role, permission)) {
    throw new TRPCError({ code: "FORBIDDEN", message: `Your role (${role}) does not include the ${permission} permission.` });
  }
  return next({ ctx: { ...ctx, org: { id: orgId, role } } });
});
