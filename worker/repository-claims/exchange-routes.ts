// POST /v1/auth/codehost-oidc (spec: the identity exchange): a workflow identity token in, a
// 15-minute engine token out.
import type { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { refusal, register, route, serverFailure } from "../openapi/declaration";
import { identityAudience } from "../codehost";
import { claimProofAudience } from "./proofs";
import { exchangeIdentity } from "./exchange";
import { admitWorkflowIdentity } from "../codehost";
import * as z from "zod";
import { text } from "../http/text";
import { NOT_BOUND_REASONS } from "../codehost";
import { UNVERIFIED_REASONS } from "../codehost";

// Shapes of POST /v1/auth/codehost-oidc (spec: Identity exchange result; 401 and 403 reasons).
export const IdentityExchangeRequest = z
  .object({
    token: text({ min: 1, max: 16_384 }).describe("A workflow identity token minted for the audience GET /v1/oidc/bindings returns."),
  })
  .meta({ id: "IdentityExchangeRequest" });

export const IdentityExchangeResult = z
  .strictObject({
    token: z.string().describe("An engine token: returned once, stored only as a hash, dead when the claim is revoked."),
    expires_at: z.iso.datetime().describe("15 minutes after the exchange."),
    org_id: z.uuid(),
    repository: z.string().describe("`owner/name`, as the identity token names it."),
  })
  .meta({ id: "IdentityExchangeResult" });

export const IdentityUnverified = z
  .strictObject({ error: z.string().describe("What to do, as a sentence."), reason: z.enum(UNVERIFIED_REASONS) })
  .meta({ id: "IdentityUnverified" });

export const IdentityNotBound = z
  .strictObject({ error: z.string().describe("What to do, as a sentence."), reason: z.enum(NOT_BOUND_REASONS) })
  .meta({ id: "IdentityNotBound" });

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
    "repository's owner, the claim is created by this exchange. A token minted for the one-time audience a pending claim was shown " +
    "(POST /v1/oidc/bindings answering 403 `claim_proof_required`) completes that claim when it comes from a workflow of exactly that " +
    "repository and the audience has not expired; the exchange then answers as usual. The engine token lasts 15 minutes and dies with the claim.",
  tag: "auth",
  gate: "reachable",
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
    const proofAudience = claimProofAudience(token, identityAudience(c.var.config, c.req.url));
    const verified = await admitWorkflowIdentity(c, token, proofAudience ?? undefined);
    const exchanged = await exchangeIdentity(c.var.database().connect, verified.identity, proofAudience);
    return reply(200, { token: exchanged.token, expires_at: exchanged.expiresAt.toISOString(), org_id: exchanged.orgId, repository: exchanged.repository });
  },
});

export function registerIdentityExchange(app: Hono<AppEnv>): void {
  register(app, exchange);
}
