// A claim as the environment's object runs it (durable-objects/environment.ts holds the connections and
// the order of calls): the caller's engine token found and admitted (live, an engine's, its
// organization not suspended, the plan gate) by the transaction's first statement, and the claim, which
// takes a run only for the token admitted, sent with it and the COMMIT: one round trip. The rules live
// here, beside the claim's statement.
import { mapResult, type OneRoundTrip } from "../../db/transaction";
import { engineTokenAtOnce } from "../auth";
import type { Config } from "../config/types";
import { requiredPlan } from "../http/plan-gate";
import { Refusal } from "../http/refusal";
import { runClaim, type ClaimedRun } from "./claim";
import type { ClaimRequest, ObjectRefusal } from "./environment-object";

/** The claim's transaction: the run it took (or none), and whether a console watches the organization. */
export function claimTransaction(
  config: Config,
  { orgId, envId, tokenHash, gate, claimId }: ClaimRequest,
): OneRoundTrip<{ run: ClaimedRun | null; watched: boolean }> {
  const claim = runClaim(orgId, envId, claimId);
  // A token's refusal comes first (the claim took a run only for the token the SQL admitted), then the environment's.
  const once = engineTokenAtOnce(tokenHash, orgId, requiredPlan(config, gate), {
    text: claim.text,
    read: (rows) => {
      const run = claim.read(rows);
      if (run === "no_environment") throw new Refusal("not_found", "No environment with that envId exists in this organization.");
      return run;
    },
  });
  return mapResult(once, ({ principal, value }) => ({ run: value, watched: principal.organization.watched }));
}

/** A refusal as data (an RPC keeps an error's message, not its class); null for any other error. */
export const refusalOf = (error: unknown): ObjectRefusal =>
  error instanceof Refusal ? { code: error.code, message: error.message, retryAfterSeconds: error.retryAfterSeconds ?? null } : null;
