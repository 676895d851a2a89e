// The context every console procedure gets, made from the request: the capabilities that find and
// authorize callers are wired into the builder's authority here, in the composition root, so the
// builder (worker/trpc/) knows none of them.
import { authorize } from "../auth";
import { checkPlanGate } from "../http/plan-gate";
import type { AppContext } from "../http/context";
import { publishChanges } from "../live-channel";
import { readOperatorCookie } from "../operators/sessions";
import { CSRF_HEADER, checkCsrf, findLiveSession, readSessionCookie } from "../sessions";
import type { RpcContext } from "../trpc/context";

export function rpcContext(c: AppContext): RpcContext {
  const config = c.var.config;
  return {
    connect: c.var.database().connect,
    config,
    env: c.env,
    sessionToken: readSessionCookie(c) ?? null,
    csrfHeader: c.req.header(CSRF_HEADER),
    requestId: c.var.requestId,
    origin: config.server.appBaseUrl ?? new URL(c.req.url).origin,
    operatorToken: readOperatorCookie(c),
    waitUntil: (work) => c.executionCtx.waitUntil(work),
    authority: {
      findSession: findLiveSession,
      checkCsrf,
      authorize: async (tx, personId, orgId, permission, side) => {
        const grant = await authorize(tx, { kind: "session", personId }, orgId, permission);
        checkPlanGate(config, grant.plan, side);
        return grant;
      },
      publish: (orgId, topic) => publishChanges(c.env, orgId, [{ topic }]),
    },
  };
}
