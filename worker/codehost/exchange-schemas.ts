// Shapes of POST /v1/auth/codehost-oidc (spec: Identity exchange result; 401 and 403 reasons).
import * as z from "zod";
import { text } from "../http/text";
import { NOT_BOUND_REASONS } from "./identity-refusal";
import { UNVERIFIED_REASONS } from "./oidc-verify";

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
