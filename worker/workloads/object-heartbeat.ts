// A heartbeat as the environment's object runs it (durable-objects/environment.ts holds the connections):
// the caller's engine token found and admitted in the organization the run was handed out in, and
// `svc_heartbeat`, which extends nothing for a token not admitted, sent with it and the COMMIT: one
// round trip, as the Worker's own heartbeat (routes.ts), on a connection the object keeps.
import { mapResult, type OneRoundTrip } from "../../db/transaction";
import { engineTokenAtOnce } from "../auth";
import type { Config } from "../config/types";
import { requiredPlan } from "../http/plan-gate";
import type { HeartbeatRequest } from "./environment-object";
import { heartbeat, type Heartbeat } from "./heartbeat";

export function heartbeatTransaction(config: Config, { orgId, tokenHash, gate, runId, leaseId }: HeartbeatRequest): OneRoundTrip<Heartbeat> {
  return mapResult(engineTokenAtOnce(tokenHash, orgId, requiredPlan(config, gate), heartbeat(runId, leaseId)), ({ value }) => value);
}
