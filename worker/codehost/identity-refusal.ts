// The identity exchange's refusals carry a `reason` beside the Refusal's `error` (spec: POST
// /v1/auth/codehost-oidc, 401 and 403). Every other route keeps the plain Refusal shape.
import { Refusal } from "../http/refusal";
import type { UnverifiedReason } from "./oidc-verify";

export const NOT_BOUND_REASONS = ["no_binding", "binding_revoked", "installation_suspended"] as const;
export type NotBoundReason = (typeof NOT_BOUND_REASONS)[number];

export class IdentityRefusal extends Refusal {
  override readonly name = "IdentityRefusal";
  constructor(
    readonly reason: UnverifiedReason | NotBoundReason,
    message: string,
  ) {
    super((NOT_BOUND_REASONS as readonly string[]).includes(reason) ? "identity_not_bound" : "identity_unverified", message);
  }

  override body(): { error: string; reason: UnverifiedReason | NotBoundReason } {
    return { error: this.message, reason: this.reason };
  }
}
