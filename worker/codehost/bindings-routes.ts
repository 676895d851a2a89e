// /v1/oidc/bindings (spec: Repository claims): a CLI token with tokens.manage claims a repository for
// its organization, lists the claims with the audience to request, and revokes them.
import type { Hono } from "hono";
import { z } from "zod";
import { addLookup, type Tx } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import { asCliToken } from "../auth/bearer";
import type { Grant } from "../auth/authorize";
import type { AppContext, AppEnv } from "../http/context";
import { readBody } from "../http/input";
import { Refusal } from "../http/refusal";
import { describeRoute, honoPath, refusal, serverFailure, type ResponseDoc } from "../openapi/route";
import { identityAudience } from "./audience";
import { BindingList, BindingPath, BindingRevocation, CreateBindingRequest, OidcBinding, RepositoryPath, toBinding } from "./bindings-schemas";
import { revokeRepositoryClaim } from "./claim-revocation";
import { findClaim, insertClaim, listClaims, type Claim, type ClaimRef } from "./claims";
import { REPOSITORY_PATTERN, repositoryKey } from "./repository";

// Claiming grants standing ability to mint engine tokens, hence tokens.manage (spec: Authentication,
// rule 7). 402: the plan check joins it once billing arrives (spec: Repository claims, common errors).
const asClaimManager = <T>(c: AppContext, work: (tx: Tx, grant: Grant) => Promise<T>) => asCliToken(c, "tokens.manage", work);

const common: Record<number, ResponseDoc> = {
  401: refusal("Not a valid CLI token"),
  402: refusal("The organization's plan lacks the hosted control plane"),
  403: refusal("The token lacks tokens.manage (the message names the login command and scope that fix it), or the organization is suspended"),
  500: serverFailure,
};
const description = "CLI token with the tokens.manage scope.";

const create = describeRoute({
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
});

const list = describeRoute({
  method: "get",
  path: "/v1/oidc/bindings",
  operationId: "listBindings",
  summary: "The audience to request identity tokens for, and this organization's claims",
  description,
  tag: "bindings",
  security: ["cliToken"],
  responses: { 200: { description: "The binding list", schema: BindingList }, ...common },
});

const revokeResponses = {
  200: { description: "Revoked now, or already (alreadyRevoked)", schema: BindingRevocation },
  400: refusal("The identifier is neither a uuid nor `owner/name`"),
  ...common,
  404: refusal("No such claim in this organization"),
};

const revokeById = describeRoute({
  method: "delete",
  path: "/v1/oidc/bindings/{binding}",
  operationId: "revokeBinding",
  summary: "Revoke a claim by id (or `owner/name`); every engine token minted through it dies",
  description,
  tag: "bindings",
  security: ["cliToken"],
  pathParams: BindingPath,
  responses: revokeResponses,
});

const revokeByRepository = describeRoute({
  method: "delete",
  path: "/v1/oidc/bindings/{owner}/{name}",
  operationId: "revokeBindingByRepository",
  summary: "Revoke the claim on a repository; every engine token minted through it dies",
  description,
  tag: "bindings",
  security: ["cliToken"],
  pathParams: RepositoryPath,
  responses: revokeResponses,
});

const UUID = z.uuid();

function claimRef(identifier: string): ClaimRef {
  if (UUID.safeParse(identifier).success) return { id: identifier };
  if (REPOSITORY_PATTERN.test(identifier)) return { repository: identifier };
  throw new Refusal("invalid_request", "Name the claim to revoke by its id (a uuid) or by its repository as `owner/name`.");
}

/** This organization's claim, or the refusal naming who holds the repository. */
function heldByUs(claim: Claim, orgId: string): Claim {
  if (claim.orgId === orgId) return claim;
  throw new Refusal(
    "claim_held_elsewhere",
    `Another organization holds the claim on ${claim.repository}; retrying will never succeed until that organization revokes it.`,
  );
}

async function revoke(c: AppContext, identifier: string) {
  const result = await asClaimManager(c, async (tx, grant) => {
    const revocation = await revokeRepositoryClaim(tx, grant.orgId, claimRef(identifier), { personId: grant.personId, label: grant.actorLabel });
    if (!revocation) throw new Refusal("not_found", "This organization has no claim with that id or on that repository.");
    return revocation;
  });
  return c.json(result, 200);
}

export function registerBindings(app: Hono<AppEnv>): void {
  app.post(honoPath(create), async (c) => {
    const claim = await asClaimManager(c, async (tx, grant) => {
      const { repository } = await readBody(c, CreateBindingRequest);
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
    return c.json(toBinding(claim), 201);
  });

  app.get(honoPath(list), async (c) => {
    const claims = await asClaimManager(c, (tx, grant) => listClaims(tx, grant.orgId));
    return c.json({ audience: identityAudience(c.var.config, c.req.url), bindings: claims.map(toBinding) }, 200);
  });

  app.delete(honoPath(revokeById), (c) => revoke(c, c.req.param("binding") ?? ""));

  app.delete(honoPath(revokeByRepository), (c) => revoke(c, `${c.req.param("owner")}/${c.req.param("name")}`));
}
