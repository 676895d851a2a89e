// claims.list and claims.revoke (tokens.manage): the organization's repository claims as the console
// shows them, beside the CLI's /v1/oidc/bindings. Claiming stays with the CLI (spec: Authentication
// rule 7), where the person signs in with the scope.
import * as z from "zod";
import { Refusal } from "../http/refusal";
import { identityAudience } from "../codehost";
import { toBinding } from "./schemas";
import { revokeRepositoryClaim, auditUnprovenClaims, listClaims } from "./store";
import { inOrganization, router } from "../trpc/builder";

const list = inOrganization
  .meta({ permission: "tokens.manage", gate: "gated", summary: "Repository claims and the audience workflows request identity tokens for" })
  .query(({ ctx }) =>
    ctx.transaction(async (tx) => {
      await auditUnprovenClaims(tx, ctx.org.id);
      return {
        audience: identityAudience(ctx.config, ctx.origin),
        // `unproven`: live, made before claims needed proof; it mints nothing until claimed again with proof.
        claims: (await listClaims(tx, ctx.org.id)).map((claim) => ({ ...toBinding(claim), unproven: claim.proof === null && claim.revokedAt === null })),
      };
    }),
  );

const revoke = inOrganization
  .meta({ permission: "tokens.manage", gate: "gated", summary: "Revoke a repository claim: every engine token minted through it dies" })
  .input(z.object({ claimId: z.uuid() }))
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const revocation = await revokeRepositoryClaim(tx, ctx.org.id, { id: input.claimId }, { personId: ctx.actor.actorPersonId, label: ctx.actor.actorLabel });
      if (!revocation) throw new Refusal("not_found", "This organization has no such repository claim.");
      return revocation;
    }),
  );

export const claimsRouter = router({ list, revoke });
