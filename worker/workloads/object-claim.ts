// A claim as the environment's object runs it (durable-objects/environment.ts holds the connections and
// the order of calls): the caller's engine token found and admitted (live, an engine's, its
// organization not suspended, the plan gate) by the transaction's first statement, and the claim, which
// takes a run only for the token admitted, sent with it and the COMMIT: one round trip. The rules live
// here, beside the claim's statement.
import type { OneRoundTrip } from "../../db/transaction";
import { admitFound, admittingScope, type Admission } from "../auth";
import type { Config } from "../config/types";
import { requiredPlan } from "../http/plan-gate";
import { Refusal } from "../http/refusal";
import { runClaim, type ClaimedRun } from "./claim";
import type { ClaimOutcome, ClaimRequest } from "./environment-object";

/** The claim's transaction: the run it took (or none), and whether a console watches the organization. */
export function claimTransaction(
  config: Config,
  { orgId, envId, tokenHash, gate, claimId }: ClaimRequest,
): OneRoundTrip<{ run: ClaimedRun | null; watched: boolean }> {
  const admission: Admission = { kinds: ["engine"], allowSuspended: false, requiredPlan: requiredPlan(config, gate) };
  const claim = runClaim(orgId, envId, claimId);
  return {
    scope: admittingScope(tokenHash, orgId, admission),
    last: claim.text,
    result: (found, rows) => {
      // A refusal here claimed nothing: the claim takes a run only for the token the SQL admitted.
      const principal = admitFound(tokenHash, found, admission);
      const run = claim.read(rows);
      if (run === "no_environment") throw new Refusal("not_found", "No environment with that envId exists in this organization.");
      return { run, watched: principal.organization.watched };
    },
  };
}

/** A refusal as data (an RPC keeps an error's message, not its class); null for any other error. */
export const refusalOf = (error: unknown): ClaimOutcome["refused"] =>
  error instanceof Refusal ? { code: error.code, message: error.message, retryAfterSeconds: error.retryAfterSeconds ?? null } : null;
