// /v1/oidc/bindings (spec: Repository claims): a CLI token with tokens.manage claims a repository for
// its organization, lists the claims with the audience to request, and revokes them.
import type { Hono } from "hono";
import * as z from "zod";
import type { Tx } from "../../db/transaction";
import { addLookup } from "../../db/acting";
import { appendAudit } from "../audit";
import { asCliToken } from "../auth";
import type { Grant } from "../auth";
import type { AppContext, AppEnv } from "../http/context";
import type { Permission } from "../shared/permissions";
import { Refusal } from "../http/refusal";
import { refusal, register, route, serverFailure } from "../openapi/declaration";
import { identityAudience } from "../codehost";
import { BindingList, BindingPath, BindingRevocation, CreateBindingRequest, OidcBinding, RepositoryPath, toBinding } from "./schemas";
import { revokeRepositoryClaim, auditUnprovenClaims, establishClaim, findLiveClaim, listClaims, type Claim, type ClaimRef } from "./store";
import { CLAIM_PROOF_LIFETIME_HOURS, requestClaimProof } from "./proofs";
import { ownInstallationsNamed } from "../codehost";
import { proveByInstallation } from "./installation-proof";
import { ownerOf, repositoryKey } from "../http/repository-name";

// Claiming grants standing ability to mint engine tokens, hence tokens.manage (spec: Authentication,
// rule 7). The required-plan gate, when on, answers 402 inside asCliToken (spec: Repository claims).
// Declared on each route too: the hook checks it before answering a refused path or body (who, then what).
const MANAGES_CLAIMS = "tokens.manage" satisfies Permission;
const asClaimManager = <T>(c: AppContext, work: (tx: Tx, grant: Grant) => Promise<T>) => asCliToken(c, MANAGES_CLAIMS, work);

const common = {
  401: refusal("Not a valid CLI token"),
  402: refusal("The organization's plan lacks the hosted control plane"),
  403: refusal("The token lacks tokens.manage (the message names the login command and scope that fix it), or the organization is suspended"),
  500: serverFailure,
};
const description = "CLI token with the tokens.manage scope.";

/** This organization's claim, or the refusal naming who holds the repository. */
function heldByUs(claim: Claim, orgId: string): Claim {
  if (claim.orgId === orgId) return claim;
  throw new Refusal(
    "claim_held_elsewhere",
    `Another organization holds the claim on ${claim.repository}; retrying will never succeed until that organization revokes it.`,
  );
}

const proofRequired = (repository: string, pending: { audience: string; expiresAt: Date }, reason: string | null) =>
  new Refusal(
    "claim_proof_required",
    `${reason ?? `This organization has no App installation on ${ownerOf(repository)}.`} The claim on ${repository} is pending and grants nothing until ` +
      `the repository proves it: run a workflow of ${repository} (with permission id-token: write) that requests an identity token for the ` +
      `audience ${pending.audience} and exchanges it at POST /v1/auth/codehost-oidc before ${pending.expiresAt.toISOString()}; the claim is then ` +
      "active and the exchange answers an engine token. Claiming again shows a fresh audience and voids this one. Or install the App on " +
      `${ownerOf(repository)} for this organization and claim again.`,
  );

const create = route({
  method: "post",
  path: "/v1/oidc/bindings",
  operationId: "createBinding",
  summary: "Claim a repository: its workflows may exchange identity tokens for this organization's engine tokens",
  description:
    `${description} A claim needs proof that this organization controls the repository: a live App installation of this organization ` +
    "on the repository's owner (checked at the code host by numeric account id) makes it active at once (201). Without one, the answer " +
    `is 403 \`claim_proof_required\`: the claim is pending, and the sentence names a one-time audience (valid ${CLAIM_PROOF_LIFETIME_HOURS} hours); ` +
    "a workflow of exactly this repository exchanging an identity token minted for it at POST /v1/auth/codehost-oidc makes it active. " +
    "A pending claim grants nothing and blocks no other organization; claiming again shows a fresh audience.",
  tag: "bindings",
  security: ["cliToken"],
  gate: "gated",
  permission: MANAGES_CLAIMS,
  body: CreateBindingRequest,
  responses: {
    201: { description: "The claim (the existing one when this organization already holds the repository)", schema: OidcBinding },
    400: refusal("Body not JSON, or repository not `owner/name`"),
    ...common,
    403: refusal(
      "The token lacks tokens.manage (the message names the login command and scope that fix it), or the organization is suspended, " +
        "or (`claim_proof_required`) no installation proves control: the claim is pending and the message says how the repository proves it",
    ),
    409: refusal("Another organization holds the repository; retrying never helps"),
  },
  handler: async (c, { body: { repository }, reply }) => {
    // What is held, and this organization's installations on the owner: read first, so that the code
    // host is asked with no transaction open.
    const seen = await asClaimManager(c, async (tx, grant) => {
      await auditUnprovenClaims(tx, grant.orgId);
      await addLookup(tx, "claim_repository", repositoryKey(repository));
      const held = await findLiveClaim(tx, repository);
      if (held?.proof) return { held: heldByUs(held, grant.orgId) };
      return { installations: await ownInstallationsNamed(tx, ownerOf(repository)) };
    });
    if (seen.held) return reply(201, toBinding(seen.held));
    const proof = await proveByInstallation(c.var.config.codehost, seen.installations, repository);
    const outcome = await asClaimManager(c, async (tx, grant) => {
      await addLookup(tx, "claim_repository", repositoryKey(repository));
      if (!proof.ok) {
        const pending = await requestClaimProof(tx, grant.orgId, repository, identityAudience(c.var.config, c.req.url));
        await appendAudit(tx, {
          orgId: grant.orgId,
          action: "repository_claim.proof_requested",
          actorPersonId: grant.personId,
          actorLabel: grant.actorLabel,
          data: { repository, expiresAt: pending.expiresAt.toISOString() },
        });
        return { pending };
      }
      const established = await establishClaim(
        tx,
        {
          orgId: grant.orgId,
          repository,
          source: "cli",
          proof: "installation",
          installationId: proof.installationId,
          repositoryId: proof.repositoryId,
          ownerId: proof.ownerId,
        },
        { personId: grant.personId, label: grant.actorLabel },
      );
      return { claim: "heldElsewhere" in established ? heldByUs(established.heldElsewhere, grant.orgId) : established.claim };
    });
    // Refused after the pending claim committed: it must outlive this answer.
    if (outcome.pending) throw proofRequired(repository, outcome.pending, proof.ok ? null : proof.reason);
    return reply(201, toBinding(outcome.claim));
  },
});

const list = route({
  method: "get",
  path: "/v1/oidc/bindings",
  operationId: "listBindings",
  summary: "The audience to request identity tokens for, and this organization's claims",
  description,
  tag: "bindings",
  security: ["cliToken"],
  permission: MANAGES_CLAIMS,
  gate: "gated",
  responses: { 200: { description: "The binding list", schema: BindingList }, ...common },
  handler: async (c, { reply }) => {
    const claims = await asClaimManager(c, async (tx, grant) => {
      await auditUnprovenClaims(tx, grant.orgId);
      return listClaims(tx, grant.orgId);
    });
    return reply(200, { audience: identityAudience(c.var.config, c.req.url), bindings: claims.map(toBinding) });
  },
});

const revokeResponses = {
  200: { description: "Revoked now, or already (alreadyRevoked)", schema: BindingRevocation },
  400: refusal("The identifier is neither a uuid nor `owner/name`"),
  ...common,
  404: refusal("No such claim in this organization"),
};

const notAClaimName = () => new Refusal("invalid_request", "Name the claim to revoke by its id (a uuid) or by its repository as `owner/name`.");

const UUID = z.uuid();

async function revoke(c: AppContext, identifier: string) {
  const ref: ClaimRef = UUID.safeParse(identifier).success ? { id: identifier } : { repository: identifier };
  return asClaimManager(c, async (tx, grant) => {
    const revocation = await revokeRepositoryClaim(tx, grant.orgId, ref, { personId: grant.personId, label: grant.actorLabel });
    if (!revocation) throw new Refusal("not_found", "This organization has no claim with that id or on that repository.");
    return revocation;
  });
}

const revokeById = route({
  method: "delete",
  path: "/v1/oidc/bindings/{binding}",
  operationId: "revokeBinding",
  summary: "Revoke a claim by id (or `owner/name`); every engine token minted through it dies",
  description,
  tag: "bindings",
  security: ["cliToken"],
  gate: "gated",
  permission: MANAGES_CLAIMS,
  params: BindingPath,
  paramsRefusal: notAClaimName,
  responses: revokeResponses,
  handler: async (c, { params: { binding }, reply }) => reply(200, await revoke(c, binding)),
});

const revokeByRepository = route({
  method: "delete",
  path: "/v1/oidc/bindings/{owner}/{name}",
  operationId: "revokeBindingByRepository",
  summary: "Revoke the claim on a repository; every engine token minted through it dies",
  description,
  tag: "bindings",
  security: ["cliToken"],
  gate: "gated",
  permission: MANAGES_CLAIMS,
  params: RepositoryPath,
  paramsRefusal: notAClaimName,
  responses: revokeResponses,
  handler: async (c, { params: { owner, name }, reply }) => reply(200, await revoke(c, `${owner}/${name}`)),
});

export function registerBindings(app: Hono<AppEnv>): void {
  register(app, create);
  register(app, list);
  register(app, revokeById);
  register(app, revokeByRepository);
}
