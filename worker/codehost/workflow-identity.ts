// A workflow identity token as every route that takes one admits it (the identity exchange, the
// pull-request callback token): verified (signature, issuer, audience, expiry), then counted against
// its repository's allowance. Counted only once the repository is proven, so nobody can spend another
// repository's allowance.
import type { BucketRule } from "../object-interfaces";
import type { AppContext } from "../http/context";
import { enforceRateLimit } from "../http/rate-limit";
import { identityAudience, identityIssuer } from "./issuer";
import { IdentityRefusal } from "./identity-refusal";
import { issuerKeys } from "./jwks";
import { verifyIdentityToken } from "./oidc-verify";
import { repositoryKey } from "../http/repository-name";

/** Per repository: a burst as large as a wide job matrix, then one exchange a second. */
export const EXCHANGE_RATE_LIMIT: BucketRule = { capacity: 60, refillPerSecond: 1 };
export const exchangeLimiterName = (repository: string) => `oidc:${repositoryKey(repository)}`;

export type VerifiedIdentity = Extract<Awaited<ReturnType<typeof verifyIdentityToken>>, { ok: true }>;

/** The verified token (signature, issuer, audience, expiry), or an IdentityRefusal (401); counts nothing. */
export async function verifyWorkflowIdentity(c: AppContext, token: string, audience = identityAudience(c.var.config, c.req.url)): Promise<VerifiedIdentity> {
  const verified = await verifyIdentityToken(token, { issuer: identityIssuer(c.var.config.codehost.apiBase), audience, keys: issuerKeys });
  if (!verified.ok) throw new IdentityRefusal(verified.reason, verified.message);
  return verified;
}

/**
 * The verified token, or an IdentityRefusal (401) or rate-limit Refusal (429). `audience`: what the
 * token must be minted for, the deployment's audience unless told (a pending claim's one-time one).
 */
export async function admitWorkflowIdentity(c: AppContext, token: string, audience = identityAudience(c.var.config, c.req.url)): Promise<VerifiedIdentity> {
  const verified = await verifyWorkflowIdentity(c, token, audience);
  const { repository } = verified.identity;
  await enforceRateLimit(
    c.env,
    exchangeLimiterName(repository),
    EXCHANGE_RATE_LIMIT,
    1,
    `Too many identity exchanges for ${repository}; each job needs one exchange, not one per request.`,
  );
  return verified;
}
