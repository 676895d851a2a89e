// Verifying a workflow identity token: signature (RS256 only, a key the pinned issuer publishes),
// issuer, audience, expiry, not-before, then the repository it speaks for. Each failure has one
// reason from the spec's list and a sentence saying what to do.
import { decodeProtectedHeader, errors, importJWK, jwtVerify, type JWTPayload } from "jose";
import type { IssuerKeys } from "./jwks";
import { jwksUrl } from "./issuer";
import { REPOSITORY_PATTERN } from "../http/repository-name";

export const UNVERIFIED_REASONS = [
  "malformed",
  "bad_algorithm",
  "no_key",
  "invalid_signature",
  "wrong_issuer",
  "wrong_audience",
  "expired",
  "not_yet_valid",
  "no_repository",
  "keys_unavailable",
] as const;
export type UnverifiedReason = (typeof UNVERIFIED_REASONS)[number];

/** What a verified token says about where it comes from. Ids are decimal text (they exceed 2^53 in principle). */
export interface WorkflowIdentity {
  repository: string;
  repositoryId: string;
  ownerId: string;
  jti: string;
  /** Unix seconds. */
  expiresAt: number;
}

export interface Expected {
  issuer: string;
  audience: string;
  keys: IssuerKeys;
}

export type Verification =
  /** `claims`: every claim of the verified token (the commit and run a pull-request check is bound to). */
  { ok: true; identity: WorkflowIdentity; claims: JWTPayload } | { ok: false; reason: UnverifiedReason; message: string };

/** Tolerated difference between this service's clock and the issuer's, for `exp` and `nbf`. */
export const CLOCK_TOLERANCE_SECONDS = 30;
const ALGORITHM = "RS256";

const MESSAGES: Record<UnverifiedReason, (expected: Expected) => string> = {
  malformed: () => "The identity token is not a well-formed signed token with an expiry and an id; send the token the code host issued, unchanged.",
  bad_algorithm: () => `The identity token is not signed with ${ALGORITHM}; only tokens from the code host's identity issuer are accepted.`,
  no_key: () => "The identity token's signing key is not one the code host's identity issuer publishes; request a fresh token from the code host.",
  invalid_signature: () => "The identity token's signature does not verify; request a fresh token from the code host and send it unchanged.",
  wrong_issuer: (e) => `The identity token was not issued by ${e.issuer}, the only issuer this service trusts.`,
  wrong_audience: (e) => `The identity token was minted for another audience; request it with the audience ${e.audience}.`,
  expired: () => "The identity token has expired; request a fresh one just before exchanging it.",
  not_yet_valid: () => "The identity token is not valid yet; retry in a moment.",
  no_repository: () => "The identity token names no repository with its ids; only tokens minted to a workflow run of a repository are accepted.",
  keys_unavailable: () => "The code host's identity keys cannot be fetched right now, so the token cannot be checked; retry in a minute.",
};

const refuse = (reason: UnverifiedReason, expected: Expected): Verification => ({ ok: false, reason, message: MESSAGES[reason](expected) });

export async function verifyIdentityToken(token: string, expected: Expected): Promise<Verification> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return refuse("malformed", expected);
  }
  if (header.alg !== ALGORITHM) return refuse("bad_algorithm", expected);
  // The key comes from the configured issuer only: nothing in the unverified token chooses where to look.
  if (typeof header.kid !== "string") return refuse("no_key", expected);
  const found = await expected.keys.find(jwksUrl(expected.issuer), header.kid);
  if (!found.ok) return refuse(found.reason, expected);

  let payload: JWTPayload;
  try {
    const key = await importJWK(found.key, ALGORITHM);
    ({ payload } = await jwtVerify(token, key, {
      algorithms: [ALGORITHM],
      issuer: expected.issuer,
      audience: expected.audience,
      requiredClaims: ["exp", "jti"],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    }));
  } catch (error) {
    return refuse(reasonFor(error), expected);
  }
  const identity = identityOf(payload);
  if (!identity) return refuse("no_repository", expected);
  if (typeof payload.jti !== "string" || payload.jti === "") return refuse("malformed", expected);
  return { ok: true, identity: { ...identity, jti: payload.jti, expiresAt: payload.exp! }, claims: payload };
}

function reasonFor(error: unknown): UnverifiedReason {
  if (error instanceof errors.JWSSignatureVerificationFailed) return "invalid_signature";
  if (error instanceof errors.JWTExpired) return "expired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "iss") return "wrong_issuer";
    if (error.claim === "aud") return "wrong_audience";
    if (error.claim === "nbf") return "not_yet_valid";
  }
  return "malformed";
}

/** The code host sends ids as decimal text. */
// Account and repository ids are compared as PostgreSQL bigints: anything past that range names no account.
const asId = (value: unknown): string | null =>
  typeof value === "string" && /^[1-9][0-9]{0,18}$/.test(value) && BigInt(value) <= 9223372036854775807n
    ? value
    : Number.isSafeInteger(value) && (value as number) > 0
      ? String(value)
      : null;

function identityOf(payload: JWTPayload): Omit<WorkflowIdentity, "jti" | "expiresAt"> | null {
  const repository = payload.repository;
  const repositoryId = asId(payload.repository_id);
  const ownerId = asId(payload.repository_owner_id);
  if (typeof repository !== "string" || !REPOSITORY_PATTERN.test(repository) || !repositoryId || !ownerId) return null;
  return { repository, repositoryId, ownerId };
}
