// /v1/oidc/bindings (spec: Repository claims): a CLI token with tokens.manage claims a repository for
// its organization, lists the claims with the audience to request, and revokes them.
import type { Hono } from "hono";
import * as z from "zod";
import { addLookup, type Tx } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import { asCliToken } from "../auth/bearer";
import type { Grant } from "../auth/authorize";
import type { AppContext, AppEnv } from "../http/context";
import { Refusal } from "../http/refusal";
import { refusal, register, route, serverFailure } from "../openapi/route";
import { identityAudience } from "./audience";
import { BindingList, BindingPath, BindingRevocation, CreateBindingRequest, OidcBinding, RepositoryPath, toBinding } from "./bindings-schemas";
import { revokeRepositoryClaim } from "./claim-revocation";
import { findClaim, insertClaim, listClaims, type Claim, type ClaimRef } from "./claims";
import { repositoryKey } from "./repository";

// Claiming grants standing ability to mint engine tokens, hence tokens.manage (spec: Authentication,
// rule 7). The required-plan gate, when on, answers 402 inside asCliToken (spec: Repository claims).
const asClaimManager = <T>(c: AppContext, work: (tx: Tx, grant: Grant) => Promise<T>) => asCliToken(c, "tokens.manage", work);

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

const create = route({
  method: "post",
  path: "/v1/oidc/bindings",
  operationId: "createBinding",
  summary: "Claim a repository: its workflows may exchange identity tokens for this organization's engine tokens",
  description,
  tag: "bindings",
  security: ["cliToken"],
  body: CreateBindingRequest,
  responses: {
    201: { description: "The claim (the existing one when this organization already holds the repository)", schema: OidcBinding },
    400: refusal("Body not JSON, or repository not `owner/name`"),
    ...common,
    409: refusal("Another organization holds the repository; retrying never helps"),
  },
  handler: async (c, { body: { repository }, reply }) => {
    const claim = await asClaimManager(c, async (tx, grant) => {
      // Every organization's claim on this repository becomes visible, so a claim held elsewhere is seen.
      await addLookup(tx, "claim_repository", repositoryKey(repository));
      const live = async () => {
        const found = await findClaim(tx, { repository });
        return found && !found.revokedAt ? found : null;
      };
      const held = await live();
      if (held) return heldByUs(held, grant.orgId);
      const created = await insertClaim(tx, { orgId: grant.orgId, repository, source: "cli" });
      // Claimed by someone a moment ago.
      if (!created) return heldByUs((await live())!, grant.orgId);
      await appendAudit(tx, {
        orgId: grant.orgId,
        action: "repository_claim.created",
        actorPersonId: grant.personId,
        actorLabel: grant.actorLabel,
        target: created.id,
        data: { repository, source: "cli" },
      });
      return created;
    });
    return reply(201, toBinding(claim));
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
  responses: { 200: { description: "The binding list", schema: BindingList }, ...common },
  handler: async (c, { reply }) => {
    const claims = await asClaimManager(c, (tx, grant) => listClaims(tx, grant.orgId));
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
