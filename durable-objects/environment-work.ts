// What an environment object does inside its transactions, loaded on the object's first call: an
// isolate's start builds none of it (bench/startup.ts).
import type { EndingWork, Scope } from "../db/transaction";
import { admit, principalFrom, principalScope } from "../worker/auth/bearer";
import { checkPlanGate } from "../worker/http/plan-gate";
import type { Config } from "../worker/config/types";
import { lockedEnvironment } from "../worker/environments/store";
import { Refusal } from "../worker/http/refusal";
import { runClaim, type ClaimedRun } from "../worker/workloads/claim";
import type { ClaimOutcome, ClaimRequest } from "../worker/workloads/environment-object";

export { lockedFrom, projectOntoEnvironment } from "../worker/environments/store";
export { confirmTeardowns } from "../worker/commands/enqueue";
export { abandonOverdueInEnvironment, nextDeadline } from "../worker/workloads/abandon";

/** A projection's transaction opens with the environment's row locked and its next deadline. */
export const projectionScope = (envId: string): Omit<Scope, "orgId"> => ({ first: lockedEnvironment(envId) });

/** A claim's transaction finds the caller's token in the round trip that opens it. */
export const claimScope = ({ tokenHash, orgId }: ClaimRequest): Scope => principalScope(tokenHash, orgId);

/**
 * The caller's engine token checked from the rows of the transaction's first statement
 * (principalScope: live, an engine's, organization not suspended, the plan gate), then the claim, sent
 * with the COMMIT: a claim is two round trips.
 */
export async function claimFor(
  config: Config,
  { orgId, envId, tokenHash, gate, claimId }: ClaimRequest,
  found: Record<string, unknown>[],
): ReturnType<EndingWork<{ run: ClaimedRun | null; watched: boolean }>> {
  const principal = admit(principalFrom(tokenHash, found), ["engine"], {}, (plan) => checkPlanGate(config, plan, gate));
  const claim = runClaim(orgId, envId, principal.tokenId, claimId);
  return {
    last: claim.text,
    result: (rows) => {
      const run = claim.read(rows);
      if (run === "no_environment") throw new Refusal("not_found", "No environment with that envId exists in this organization.");
      return { run, watched: principal.organization.watched };
    },
  };
}

/** A refusal as data (an RPC keeps an error's message, not its class); null for any other error. */
export const refusalOf = (error: unknown): ClaimOutcome["refused"] =>
  error instanceof Refusal ? { code: error.code, message: error.message, retryAfterSeconds: error.retryAfterSeconds ?? null } : null;
