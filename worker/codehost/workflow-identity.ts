// A workflow identity token as every route that takes one admits it (the identity exchange, the
// pull-request callback token): verified (signature, issuer, audience, expiry), then counted against
// its repository's allowance. Counted only once the repository is proven, so nobody can spend another
// repository's allowance.
import type { BucketRule } from "../../durable-objects/rate-limiter";
import type { AppContext } from "../http/context";
import { enforceRateLimit } from "../http/rate-limit";
import { identityAudience } from "./audience";
import { IdentityRefusal } from "./identity-refusal";
import { identityIssuer } from "./issuer";
import { issuerKeys } from "./jwks";
import { verifyIdentityToken } from "./oidc-verify";
import { repositoryKey } from "./repository";

/** Per repository: a burst as large as a wide job matrix, then one exchange a second. */
export const EXCHANGE_RATE_LIMIT: BucketRule = { capacity: 60, refillPerSecond: 1 };
export const exchangeLimiterName = (repository: string) => `oidc:${repositoryKey(repository)}`;

export type VerifiedIdentity = Extract<Awaited<ReturnType<typeof verifyIdentityToken>>, { ok: true }>;

/** The verified token, or an IdentityRefusal (401) or rate-limit Refusal (429). */
export async function admitWorkflowIdentity(c: AppContext, token: string): Promise<VerifiedIdentity> {
  const { config } = c.var;
  const verified = await verifyIdentityToken(token, {
    issuer: identityIssuer(config.codehost.apiBase),
    audience: identityAudience(config, c.req.url),
    keys: issuerKeys,
  });
  if (!verified.ok) throw new IdentityRefusal(verified.reason, verified.message);
  const { repository } = verified.identity;
  await enforceRateLimit(c.env, exchangeLimiterName(repository), EXCHANGE_RATE_LIMIT, 1,
    `Too many identity exchanges for ${repository}; each job needs one exchange, not one per request.`);
  return verified;
}
