// Shapes of the repository-claim routes (spec: Repository claim (OidcBinding), Binding list, Binding
// revocation result).
import * as z from "zod";
import { text } from "../http/text";
import type { Claim } from "./store";
import { REPOSITORY_PART_PATTERN, RepositoryName } from "../http/repository-name";

export const CreateBindingRequest = z
  .strictObject({ repository: RepositoryName.describe("The repository to claim, `owner/name`.") })
  .meta({ id: "CreateBindingRequest" });

export const OidcBinding = z
  .strictObject({
    id: z.uuid(),
    repository: z.string().describe("`owner/name`, as it was claimed; compared without regard to case."),
    createdAt: z.iso.datetime(),
    lastUsedAt: z.iso.datetime().nullable().describe("Null: never used."),
    revokedAt: z.iso.datetime().nullable().describe("Null: not revoked."),
  })
  .meta({ id: "OidcBinding" });

export const BindingList = z
  .strictObject({
    audience: z.string().describe("The audience workflows request identity tokens for."),
    bindings: z.array(OidcBinding).describe("This organization's claims, live and revoked, newest first."),
  })
  .meta({ id: "BindingList" });

export const BindingRevocation = z
  .strictObject({
    revoked: z.boolean(),
    repository: z.string(),
    alreadyRevoked: z.boolean().describe("True when the claim had been revoked before; nothing changed."),
    tokensRevoked: z.int().min(0).describe("Live engine tokens minted through the claim that were killed."),
  })
  .meta({ id: "BindingRevocation" });

export const BindingPath = z.object({
  binding: z.union([z.uuid(), RepositoryName]).describe("The claim's id (uuid), or its repository as `owner/name` with the slash URL-encoded."),
});

const repositoryPart = (what: string) => text({ min: 1, max: 100 }).regex(REPOSITORY_PART_PATTERN, "must be letters, digits, `_`, `.` or `-`").describe(what);

export const RepositoryPath = z.object({ owner: repositoryPart("The repository's owner."), name: repositoryPart("The repository's name.") });

export const toBinding = (claim: Claim): z.infer<typeof OidcBinding> => ({
  id: claim.id,
  repository: claim.repository,
  createdAt: claim.createdAt.toISOString(),
  lastUsedAt: claim.lastUsedAt?.toISOString() ?? null,
  revokedAt: claim.revokedAt?.toISOString() ?? null,
});
