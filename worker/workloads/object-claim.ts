// A claim as the environment's object runs it (durable-objects/environment.ts holds the connections and
// the order of calls): the caller's engine token checked from the rows of the transaction's first
// statement (live, an engine's, its organization not suspended, the plan gate), then the claim sent
// with the COMMIT, so a claim is two round trips. The rules live here, beside the claim's statement.
import type { EndingWork, Scope } from "../../db/transaction";
import { admit, principalFrom, principalScope } from "../auth";
import type { Config } from "../config/types";
import { checkPlanGate } from "../http/plan-gate";
import { Refusal } from "../http/refusal";
import { runClaim, type ClaimedRun } from "./claim";
import type { ClaimOutcome, ClaimRequest } from "./environment-object";

/** A claim's transaction finds the caller's token in the round trip that opens it. */
export const claimScope = ({ tokenHash, orgId }: ClaimRequest): Scope => principalScope(tokenHash, orgId);

/** The claim's work in that transaction: the run it took (or none), and whether a console watches the organization. */
export function claimWork(config: Config, { orgId, envId, tokenHash, gate, claimId }: ClaimRequest): EndingWork<{ run: ClaimedRun | null; watched: boolean }> {
  return async (_tx, found) => {
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
  };
}

/** A refusal as data (an RPC keeps an error's message, not its class); null for any other error. */
export const refusalOf = (error: unknown): ClaimOutcome["refused"] =>
  error instanceof Refusal ? { code: error.code, message: error.message, retryAfterSeconds: error.retryAfterSeconds ?? null } : null;
