// POST /v1/auth/codehost-oidc (spec: the identity exchange): a workflow identity token in, a
// 15-minute engine token out.
import type { Hono } from "hono";
import type { BucketRule } from "../../durable-objects/rate-limiter";
import type { AppEnv } from "../http/context";
import { enforceRateLimit } from "../http/rate-limit";
import { refusal, register, route, serverFailure } from "../openapi/route";
import { identityAudience } from "./audience";
import { exchangeIdentity } from "./exchange";
import { IdentityExchangeRequest, IdentityExchangeResult, IdentityNotBound, IdentityUnverified } from "./exchange-schemas";
import { IdentityRefusal } from "./identity-refusal";
import { identityIssuer } from "./issuer";
import { issuerKeys } from "./jwks";
import { verifyIdentityToken } from "./oidc-verify";
import { repositoryKey } from "./repository";

/** Per repository: a burst as large as a wide job matrix, then one exchange a second. */
export const EXCHANGE_RATE_LIMIT: BucketRule = { capacity: 60, refillPerSecond: 1 };
export const exchangeLimiterName = (repository: string) => `oidc:${repositoryKey(repository)}`;

const exchange = route({
  method: "post",
  path: "/v1/auth/codehost-oidc",
  operationId: "exchangeWorkflowIdentity",
  summary: "Exchange a workflow identity token for a short-lived engine token",
  description:
    "No header authentication: the body carries the identity token a workflow requested for the audience GET /v1/oidc/bindings " +
    "returns (the workflow needs permission to request identity tokens). Checked: signature (RS256, keys of the configured " +
    "code host's issuer), issuer, audience, expiry, not-before, and that the token was not exchanged before. The organization " +
    "comes from the repository's claim; with no claim and exactly one organization holding a live App installation on the " +
    "repository's owner, the claim is created by this exchange. The engine token lasts 15 minutes and dies with the claim.",
  tag: "auth",
  body: IdentityExchangeRequest,
  responses: {
    200: { description: "An engine token, returned once", schema: IdentityExchangeResult },
    400: refusal("Body not JSON, or no token"),
    401: { description: "The identity did not verify; `reason` says why and `error` what to do", schema: IdentityUnverified },
    403: { description: "The identity verified but grants nothing; `reason` says why", schema: IdentityNotBound },
    429: refusal("Too many exchanges for this repository", { "Retry-After": "Seconds to wait before exchanging again" }),
    500: serverFailure,
  },
  handler: async (c, { body: { token }, reply }) => {
    const { config } = c.var;
    const verified = await verifyIdentityToken(token, {
      issuer: identityIssuer(config.codehost.apiBase),
      audience: identityAudience(config, c.req.url),
      keys: issuerKeys,
    });
    if (!verified.ok) throw new IdentityRefusal(verified.reason, verified.message);
    // Counted only once the repository is proven, so nobody can spend another repository's allowance.
    const { repository } = verified.identity;
    await enforceRateLimit(c.env, exchangeLimiterName(repository), EXCHANGE_RATE_LIMIT, 1,
      `Too many identity exchanges for ${repository}; each job needs one exchange, not one per request.`);
    const exchanged = await exchangeIdentity(c.var.database().connect, verified.identity);
    return reply(200, { token: exchanged.token, expires_at: exchanged.expiresAt.toISOString(), org_id: exchanged.orgId, repository: exchanged.repository });
  },
});

export function registerIdentityExchange(app: Hono<AppEnv>): void {
  register(app, exchange);
}
